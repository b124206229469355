package cluster

import (
	"context"
	"fmt"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/converge-dev/converge/impl/store/storetest"
	"github.com/converge-dev/converge/model"
)

// flowWrites counts the store writes the seed flow must make for a
// Deployment of n replicas on the given nodes, from the model.
func flowWrites(nodes, n int) int {
	st := model.New(model.Config{})
	for i := 1; i <= nodes; i++ {
		st.Step(model.Action{Op: model.OpAddNode, Who: fmt.Sprintf("node-%d", i)})
	}
	st.Step(model.Action{Op: model.OpApply, Key: "big", N: n, Image: "nginx:1"})
	writes := 0
	for {
		a, ok := st.NextQuiesceStep()
		if !ok {
			return writes
		}
		for _, w := range st.Step(a).Writes {
			if w.Err == nil && w.Local == "" {
				writes++
			}
		}
	}
}

// rawParallelPuts measures raw concurrent etcd write throughput (puts/s)
// through c on the same etcd, with 32 writers.
func rawParallelPuts(b *testing.B, c *clientv3.Client, total int) float64 {
	value := make([]byte, 1500)
	var next atomic.Int64
	start := time.Now()
	done := make(chan struct{})
	for w := 0; w < 32; w++ {
		go func() {
			defer func() { done <- struct{}{} }()
			for {
				i := next.Add(1)
				if i > int64(total) {
					return
				}
				if _, err := c.Put(context.Background(), fmt.Sprintf("/floor/%d/%d", b.N, i), string(value)); err != nil {
					b.Error(err)
					return
				}
			}
		}()
	}
	for w := 0; w < 32; w++ {
		<-done
	}
	return float64(total) / time.Since(start).Seconds()
}

// BenchmarkRunning1000Pods measures the running driver from applying a
// Deployment of 1000 replicas on 100 fake nodes to convergence, against the
// etcd floor measured in the same run: the writes the flow must make (from
// the model) divided by raw concurrent etcd put throughput. It reports
// floor-ms and x-floor (elapsed / floor; the goal is at most 1.5) for puts
// over gRPC, as a client of an etcd cluster makes them, and the same
// against puts on the in-process client the flow itself uses, which etcd
// takes two to three times faster.
func BenchmarkRunning1000Pods(b *testing.B) {
	const nodes, pods = 100, 1000 // see the closing note for figures
	b.StopTimer()                 // ns/op is the flow alone
	writes := flowWrites(nodes, pods)
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		throughput := rawParallelPuts(b, storetest.GRPCClient(b), 5000)
		inproc := rawParallelPuts(b, storetest.Client(b), 5000)
		floor := time.Duration(float64(writes) / throughput * float64(time.Second))
		inprocFloor := time.Duration(float64(writes) / inproc * float64(time.Second))
		r, err := StartRunning(RunningConfig{Store: storetest.Store(b), Nodes: nodes})
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		start, cpuStart := time.Now(), cpuTime(b)
		if res := r.Apply(model.Action{Op: model.OpApply, Key: "big", N: pods, Image: "nginx:1"}); res.Err != nil {
			b.Fatal(res.Err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		_, err = r.WaitConverged(ctx, 2*time.Millisecond)
		cancel()
		elapsed, cpu := time.Since(start), cpuTime(b)-cpuStart
		b.StopTimer()
		r.Close()
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(writes), "writes")
		b.ReportMetric(float64(floor.Milliseconds()), "floor-ms")
		b.ReportMetric(elapsed.Seconds()/floor.Seconds(), "x-floor")
		b.ReportMetric(throughput, "raw-puts/s")
		b.ReportMetric(cpu.Seconds(), "cpu-s")
		b.ReportMetric(float64(inprocFloor.Milliseconds()), "inproc-floor-ms")
		b.ReportMetric(elapsed.Seconds()/inprocFloor.Seconds(), "x-inproc-floor")
	}
}

// cpuTime is the CPU time this process has used, user and system.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
