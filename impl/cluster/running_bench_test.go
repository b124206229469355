package cluster

import (
	"context"
	"fmt"
	"slices"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

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

// rawPutRounds measures raw concurrent etcd write throughput (puts/s)
// through c in two rounds of rawParallelPuts. An iteration takes two
// before the flow and two after it, and its floor uses their median: one
// round moved by a fifth from the next on this machine, whose speed drifts
// from second to second, so rounds on both sides of the flow measure the
// etcd the flow ran on. A round is floorRoundPuts long.
func rawPutRounds(b testing.TB, c *clientv3.Client) []float64 {
	return []float64{rawParallelPuts(b, c, floorRoundPuts), rawParallelPuts(b, c, floorRoundPuts)}
}

// floorRoundPuts is the length of a floor round: a third of a second or
// more, so that each spans several of etcd's backend commits (every
// 100 ms) as the flows do. Rounds of 2,000 puts, under 0.1 s, spread from
// 22,500 to 37,400 puts/s in one run, and moved a large flow's ratio by a
// third; rounds of 10,000 to 40,000 stayed within 6% of each other.
const floorRoundPuts = 10000

// floorValueBytes is the size of a floor put's value: a running pod's as
// the registry stores it, in protobuf (991 bytes; `BenchmarkStoredPod` in
// impl/registry). It was 1,500 while pods were stored as JSON (2,186).
const floorValueBytes = 1000

func median(xs []float64) float64 {
	s := slices.Sorted(slices.Values(xs))
	if len(s)%2 == 0 {
		return (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return s[len(s)/2]
}

// floorRounds numbers the rounds of rawParallelPuts, so each writes keys
// of its own.
var floorRounds atomic.Int64

// rawParallelPuts measures raw concurrent etcd write throughput (puts/s)
// through c on the same etcd, with 32 writers of floorValueBytes each.
func rawParallelPuts(b testing.TB, c *clientv3.Client, total int) float64 {
	value := make([]byte, floorValueBytes)
	round := floorRounds.Add(1)
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
				if _, err := c.Put(context.Background(), fmt.Sprintf("/floor/%d/%d", round, i), string(value)); err != nil {
					b.Error(err)
					return
				}
			}
		}()
	}
	for w := 0; w < 32; w++ {
		<-done
	}
	rate := float64(total) / time.Since(start).Seconds()
	// The round's keys go, so that compaction can reclaim them: rounds of
	// 15 MB each filled etcd's quota within one run of the scale table.
	if _, err := c.Delete(context.Background(), fmt.Sprintf("/floor/%d/", round), clientv3.WithPrefix()); err != nil {
		b.Error(err)
	}
	return rate
}

// BenchmarkRunning1000Pods measures the running driver from applying a
// Deployment of 1000 replicas on 100 fake nodes to convergence, against the
// etcd floor measured in the same run: the writes the flow made (the
// store's revisions from applying to converged) divided by raw concurrent
// etcd put throughput, measured just before and just after the flow
// (rawPutRounds). x-floor is elapsed / floor, summed over the
// iterations (the goal is at most 1.5), for puts over gRPC, as a client of
// an etcd cluster makes them; x-inproc-floor is the same against puts on
// the in-process client the flow itself uses. x-model-floor counts the
// writes the model's flow makes instead, one status write per change where
// the running controllers coalesce them, so its floor is higher.
func BenchmarkRunning1000Pods(b *testing.B) {
	const nodes, pods = 100, 1000 // see the closing note for figures
	b.StopTimer()                 // ns/op is the flow alone
	modelWrites := flowWrites(nodes, pods)
	var elapsed, floor, inprocFloor, modelFloor, cpu time.Duration
	var made int64
	var throughput float64
	for i := 0; i < b.N; i++ {
		f := runFlow(b, nodes, pods, 0, 10*time.Minute)
		if !f.converged {
			b.Fatal(f.notConverged)
		}
		elapsed, cpu, made, throughput = elapsed+f.took, cpu+f.cpu, made+f.writes, throughput+f.puts
		floor += f.floor(f.puts)
		inprocFloor += f.floor(f.inproc)
		modelFloor += seconds(float64(modelWrites) / f.puts)
	}
	n := float64(b.N)
	b.ReportMetric(float64(made)/n, "writes-made")
	b.ReportMetric(float64(modelWrites), "model-writes")
	b.ReportMetric(throughput/n, "raw-puts/s")
	b.ReportMetric(cpu.Seconds()/n, "cpu-s")
	b.ReportMetric(float64(floor.Milliseconds())/n, "floor-ms")
	b.ReportMetric(elapsed.Seconds()/floor.Seconds(), "x-floor")
	b.ReportMetric(float64(inprocFloor.Milliseconds())/n, "inproc-floor-ms")
	b.ReportMetric(elapsed.Seconds()/inprocFloor.Seconds(), "x-inproc-floor")
	b.ReportMetric(elapsed.Seconds()/modelFloor.Seconds(), "x-model-floor")
}

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// cpuTime is the CPU time this process has used, user and system.
func cpuTime(b testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
