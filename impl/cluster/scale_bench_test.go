package cluster

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/converge-dev/converge/impl/store/storetest"
	"github.com/converge-dev/converge/model"
)

// flowFigures is what one run of the seed flow at a size measured: apply a
// Deployment of pods replicas on nodes fake nodes, then wait for
// convergence.
type flowFigures struct {
	took, cpu    time.Duration
	writes       int64 // the store's revisions from applying to converged
	heartbeats   int64 // of those, the kubelets' heartbeat writes
	peakHeap     uint64
	puts, inproc float64 // raw concurrent puts/s, over gRPC and in-process
	converged    bool
	notConverged error
}

// flowProfile is where runFlow writes a CPU profile of the flow alone
// (from apply to convergence): -cpuprofile would hold the model's flow and
// the etcd floor's rounds too.
var flowProfile = flag.String("scale.flowprofile", "", "write a CPU profile of each scale flow (apply to convergence) to this file")

// runFlow boots a running cluster of nodes nodes (tick: its heartbeat
// period, 0 for the default), applies a Deployment of pods replicas and
// waits up to limit for convergence, measuring the raw etcd floor on both
// sides of the flow (rawPutRounds).
func runFlow(tb testing.TB, nodes, pods int, tick, limit time.Duration) flowFigures {
	b, _ := tb.(*testing.B)
	var f flowFigures
	compactAll(tb)
	// A round on a cold etcd, or beside the collection of the model flow's
	// garbage, ran at a third of the speed of the rounds after the flow.
	runtime.GC()
	rawParallelPuts(tb, storetest.GRPCClient(tb), 2000)
	rawParallelPuts(tb, storetest.Client(tb), 2000)
	putRounds := rawPutRounds(tb, storetest.GRPCClient(tb))
	inprocRounds := rawPutRounds(tb, storetest.Client(tb))
	st := storetest.Store(tb)
	var heartbeats atomic.Int64
	r, err := StartRunning(RunningConfig{Store: st, Nodes: nodes, Tick: tick, OnStep: func(a model.Action, res model.Result) {
		if a.Op == model.OpHeartbeat {
			for _, w := range res.Writes {
				if w.Err == nil && w.Local == "" {
					heartbeats.Add(1)
				}
			}
		}
	}})
	if err != nil {
		tb.Fatal(err)
	}
	rev0, err := st.Rev(context.Background())
	if err != nil {
		tb.Fatal(err)
	}
	heartbeats.Store(0)
	runtime.GC() // the peak heap is the cluster's, not a model's garbage
	stopHeap := sampleHeap(&f.peakHeap)
	if b != nil {
		b.StartTimer()
	}
	stopProfile := startFlowProfile(tb)
	start, cpuStart := time.Now(), cpuTime(tb)
	if res := r.Apply(model.Action{Op: model.OpApply, Key: "big", N: pods, Image: "nginx:1"}); res.Err != nil {
		tb.Fatal(res.Err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	_, f.notConverged = r.WaitConverged(ctx, 2*time.Millisecond)
	cancel()
	f.took, f.cpu = time.Since(start), cpuTime(tb)-cpuStart
	stopProfile()
	if b != nil {
		b.StopTimer()
	}
	stopHeap()
	f.converged = f.notConverged == nil
	f.heartbeats = heartbeats.Load()
	rev1, err := st.Rev(context.Background())
	r.Close() // before the rounds after: its heartbeats would write too
	if err != nil {
		tb.Fatal(err)
	}
	if err := st.Drop(context.Background()); err != nil { // the next flow's etcd is as empty as this one's
		tb.Fatal(err)
	}
	f.writes = rev1 - rev0
	// As before the flow: the closed cluster's garbage is collected first,
	// else these rounds ran with no collection at all and came out a third
	// faster than those before.
	runtime.GC()
	putRounds = append(putRounds, rawPutRounds(tb, storetest.GRPCClient(tb))...)
	inprocRounds = append(inprocRounds, rawPutRounds(tb, storetest.Client(tb))...)
	f.puts, f.inproc = median(putRounds), median(inprocRounds)
	// The floor's rounds are short and the machine's speed drifts: their
	// spread says how far to trust one run's ratio.
	tb.Logf("%d nodes, %d pods: %v to converge; raw puts/s over gRPC before and after %.0f, in-process %.0f",
		nodes, pods, f.took.Round(time.Millisecond), putRounds, inprocRounds)
	return f
}

// compactAll compacts the shared etcd's whole history, and waits for the
// compaction to reach its backend, so that each flow starts on an etcd
// without history: the floor rounds and flows of a scale table write over
// a gigabyte a minute, and within the shared etcd's compaction window of a
// minute or two they filled its quota. Nothing else runs meanwhile: the
// package's tests are sequential, and the last flow's cluster is closed.
func compactAll(tb testing.TB) {
	c := storetest.Client(tb)
	resp, err := c.Get(context.Background(), "/", clientv3.WithCountOnly())
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := c.Compact(context.Background(), resp.Header.Revision, clientv3.WithCompactPhysical()); err != nil && !errors.Is(err, rpctypes.ErrCompacted) {
		tb.Fatal(err)
	}
}

// startFlowProfile starts -scale.flowprofile's CPU profile, if asked.
func startFlowProfile(tb testing.TB) (stop func()) {
	if *flowProfile == "" {
		return func() {}
	}
	f, err := os.Create(*flowProfile)
	if err != nil {
		tb.Fatal(err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		tb.Fatal(err)
	}
	return func() { pprof.StopCPUProfile(); f.Close() }
}

// floor is the time raw concurrent puts at the given rate take to make the
// flow's writes.
func (f flowFigures) floor(puts float64) time.Duration {
	return seconds(float64(f.writes) / puts)
}

// sampleHeap records the peak of the live heap (runtime/metrics' heap
// objects bytes) every 20 ms until the returned func is called.
func sampleHeap(peak *uint64) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		for {
			metrics.Read(s)
			*peak = max(*peak, s[0].Value.Uint64())
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return func() { close(done); wg.Wait() }
}

// scaleSizes are BenchmarkRunningScale's sizes: issue 23's table.
var scaleSizes = []struct{ nodes, pods int }{
	{100, 1000}, {300, 3000}, {1000, 1000}, {1000, 3000}, {1000, 10000},
}

// modelWrites memoizes flowWrites per size: testing runs a benchmark
// function once with b.N = 1 before the b.N asked for, and the model's
// flow of 10,000 pods on 1,000 nodes takes minutes.
var modelWritesMemo = map[[2]int]int{}

func modelWritesAt(nodes, pods int) int {
	k := [2]int{nodes, pods}
	if _, ok := modelWritesMemo[k]; !ok {
		modelWritesMemo[k] = flowWrites(nodes, pods)
	}
	return modelWritesMemo[k]
}

// BenchmarkRunningScale runs the seed flow of BenchmarkRunning1000Pods at
// each size of scaleSizes (select with -bench 'RunningScale/nodes=1000,'):
// time to convergence (ns/op), its ratio to the etcd write floor of the
// same run over gRPC (x-floor) and in-process (x-inproc-floor), CPU
// seconds, the peak live heap, the writes made against the model's, and
// the heartbeat writes among them. Costs per pod and per node should stay
// flat across sizes.
func BenchmarkRunningScale(b *testing.B) {
	for _, size := range scaleSizes {
		b.Run(fmt.Sprintf("nodes=%d,pods=%d", size.nodes, size.pods), func(b *testing.B) {
			b.StopTimer()
			modelWrites := modelWritesAt(size.nodes, size.pods)
			var took, floor, inprocFloor, cpu time.Duration
			var writes, heartbeats int64
			var peak uint64
			for range b.N {
				f := runFlow(b, size.nodes, size.pods, 0, 10*time.Minute)
				if !f.converged {
					b.Fatalf("%d pods on %d nodes: %v after %v (%d writes, %d of them heartbeats)",
						size.pods, size.nodes, f.notConverged, f.took.Round(time.Second), f.writes, f.heartbeats)
				}
				took, cpu = took+f.took, cpu+f.cpu
				floor, inprocFloor = floor+f.floor(f.puts), inprocFloor+f.floor(f.inproc)
				writes, heartbeats, peak = writes+f.writes, heartbeats+f.heartbeats, max(peak, f.peakHeap)
			}
			n := float64(b.N)
			b.ReportMetric(took.Seconds()/n, "converge-s")
			b.ReportMetric(took.Seconds()/floor.Seconds(), "x-floor")
			b.ReportMetric(took.Seconds()/inprocFloor.Seconds(), "x-inproc-floor")
			b.ReportMetric(cpu.Seconds()/n, "cpu-s")
			b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
			b.ReportMetric(float64(writes)/n, "writes-made")
			b.ReportMetric(float64(modelWrites), "model-writes")
			b.ReportMetric(float64(heartbeats)/n, "heartbeat-writes")
			b.ReportMetric(float64(took.Microseconds())/n/float64(size.pods), "µs/pod")
		})
	}
}

// TestScaleFlowMeasures keeps runFlow honest at a small size, with a tick
// short enough that kubelets heart-beat during the flow: it converges, the
// heartbeats are counted among its writes, the others lie between three a
// pod (create, bind, start) and twice the model's, and the floor and heap
// figures are measured.
func TestScaleFlowMeasures(t *testing.T) {
	const nodes, pods = 20, 200
	f := runFlow(t, nodes, pods, 5*time.Millisecond, 2*time.Minute)
	if !f.converged {
		t.Fatalf("not converged: %v", f.notConverged)
	}
	model := int64(flowWrites(nodes, pods))
	t.Logf("%v to converge, %d writes (model %d, heartbeats %d), %.0f puts/s, peak heap %d MiB",
		f.took.Round(time.Millisecond), f.writes, model, f.heartbeats, f.puts, f.peakHeap>>20)
	// Every pod is created, bound and started: three writes each at least.
	if w := f.writes - f.heartbeats; w < 3*pods || w > 2*model {
		t.Errorf("the flow made %d writes besides heartbeats; the model makes %d, and at least %d are needed", w, model, 3*pods)
	}
	if f.heartbeats == 0 || f.heartbeats > f.writes {
		t.Errorf("%d heartbeat writes of %d", f.heartbeats, f.writes)
	}
	if f.puts <= 0 || f.inproc <= 0 || f.peakHeap == 0 || f.cpu <= 0 {
		t.Errorf("unmeasured: puts/s %v, in-process puts/s %v, peak heap %d, cpu %v", f.puts, f.inproc, f.peakHeap, f.cpu)
	}
}
