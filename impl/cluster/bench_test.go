package cluster

import (
	"testing"
	"time"

	"github.com/converge-dev/converge/impl/store/storetest"
	"github.com/converge-dev/converge/model"
)

// Run them with:
//
//	go test -run '^$' -bench 'Stepped|RawEtcd' -count=3 ./impl/cluster/
//
// The stepped driver's overhead over etcd, from one run:
//
//	ratio = BenchmarkRawEtcdCAS ns/op / BenchmarkSteppedPerWrite ns/op
//
// 1 means every store write costs the driver no more than a bare CAS; the
// goal is >= 0.5 (the driver at most doubles the cost of each write).

// benchCycle is what the user does whenever the cluster is quiet: every
// entry changes the Deployment, so each one sets off a rollout or a resize.
var benchCycle = []string{
	"scale myapp 5",
	"set-image myapp nginx:2",
	"scale myapp 2",
	"set-image myapp nginx:1",
}

// benchSetup is the realistic cluster of the seed flow: 3 nodes, a Service
// and a Deployment, already converged.
var benchSetup = []string{
	"add-node node-1", "add-node node-2", "add-node node-3",
	"apply-service myapp app=myapp port=80",
	"apply myapp replicas=3 image=nginx:1",
}

// benchDriver feeds a stepped cluster the fair quiesce schedule, and the
// next user action of benchCycle whenever the cluster is quiet.
type benchDriver struct {
	b      *testing.B
	s      *Stepped
	cycle  []model.Action
	next   int
	writes int // successful store writes (node-local effects excluded)
}

func newBenchDriver(b *testing.B) *benchDriver {
	b.Helper()
	s, err := NewStepped(SteppedConfig{Store: storetest.Store(b)})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(s.Close)
	d := &benchDriver{b: b, s: s, cycle: parseBenchActions(b, benchCycle)}
	for _, a := range parseBenchActions(b, benchSetup) {
		d.step(a)
	}
	for {
		a, ok := s.NextQuiesceStep()
		if !ok {
			break
		}
		d.step(a)
	}
	d.writes = 0
	return d
}

func parseBenchActions(b *testing.B, lines []string) []model.Action {
	b.Helper()
	out := make([]model.Action, len(lines))
	for i, l := range lines {
		a, err := model.ParseAction(l)
		if err != nil {
			b.Fatal(err)
		}
		out[i] = a
	}
	return out
}

// advance applies one action: the next quiesce step, or the next user
// action when there is none. No snapshot is taken or compared.
func (d *benchDriver) advance() {
	a, ok := d.s.NextQuiesceStep()
	if !ok {
		a = d.cycle[d.next%len(d.cycle)]
		d.next++
	}
	d.step(a)
}

func (d *benchDriver) step(a model.Action) {
	r := d.s.Step(a)
	if r.Err != nil {
		d.b.Fatalf("%s: %v", a, r.Err)
	}
	for _, w := range r.Writes {
		if w.Local == "" && w.Err == nil {
			d.writes++
		}
	}
}

// finish fails the benchmark if the driver reported internal errors, which
// would mean the figures measured a broken run.
func (d *benchDriver) finish() {
	d.b.Helper()
	if errs := d.s.Errors(); len(errs) > 0 {
		d.b.Fatalf("stepped driver errors: %v", errs)
	}
}

// BenchmarkSteppedStep is the stepped driver's cost per action (deliver,
// reconcile, heartbeat or user action) on the seed cluster, including the
// choice of the next action.
func BenchmarkSteppedStep(b *testing.B) {
	d := newBenchDriver(b)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		d.advance()
	}
	b.StopTimer()
	d.finish()
	b.ReportMetric(float64(d.writes)/float64(b.N), "writes/op")
}

// BenchmarkSteppedPerWrite is the stepped driver's cost per successful store
// write: one op is one write, and the time includes every action (deliveries
// and writeless reconciles too) it took to make the writes. Compare its
// ns/op with BenchmarkRawEtcdCAS's (see the formula at the top of the file).
func BenchmarkSteppedPerWrite(b *testing.B) {
	d := newBenchDriver(b)
	actions := 0
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	for d.writes < b.N {
		d.advance()
		actions++
	}
	elapsed := time.Since(start)
	b.StopTimer()
	d.finish()
	// The last action may overshoot b.N; this figure divides by the writes
	// actually made.
	b.ReportMetric(float64(elapsed.Nanoseconds())/float64(d.writes), "ns/write")
	b.ReportMetric(float64(actions)/float64(d.writes), "actions/write")
}
