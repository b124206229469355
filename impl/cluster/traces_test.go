package cluster

import (
	"bytes"
	"path/filepath"
	"testing"
	"time"

	"github.com/converge-dev/converge/impl/store/storetest"
	"github.com/converge-dev/converge/model"
	"github.com/converge-dev/converge/properties/mutants/decide"
	"github.com/converge-dev/converge/traces"
)

// goldenTraces is where the model's golden scenario traces live.
var goldenTraces = filepath.Join("..", "..", "traces", "testdata", "traces")

// scenarioRun is one scenario's recorded trace on one cluster.
type scenarioRun struct {
	events []traces.TraceEvent
	took   time.Duration
}

// recordActions steps actions through s and returns the trace it recorded.
func recordActions(t testing.TB, s traces.Stepper, actions []model.Action) scenarioRun {
	t.Helper()
	var buf bytes.Buffer
	rec := traces.NewRecorder(s, traces.NewWriter(&buf))
	start := time.Now()
	for _, a := range actions {
		rec.Step(a)
	}
	took := time.Since(start)
	if err := rec.Err(); err != nil {
		t.Fatal(err)
	}
	events, err := traces.ReadAll(&buf)
	if err != nil {
		t.Fatalf("read back the recorded trace: %v", err)
	}
	return scenarioRun{events: events, took: took}
}

// requireSameTrace fails with the text diff when a and b differ after masking.
func requireSameTrace(t *testing.T, a, b []traces.TraceEvent, what string) {
	t.Helper()
	res := traces.Diff(a, b, traces.DiffOptions{})
	if res.Equal {
		return
	}
	var text bytes.Buffer
	if err := traces.WriteText(&text, res, false, traces.DefaultContext); err != nil {
		t.Fatalf("%s differ, and the diff cannot be printed: %v", what, err)
	}
	t.Fatalf("%s differ:\n%s", what, text.String())
}

// TestScenarioTracesMatchModel runs every golden scenario on the model and on
// the stepped implementation: the two traces, and the implementation's trace
// and the committed golden, must be equal after masking, and the
// implementation must end converged.
func TestScenarioTracesMatchModel(t *testing.T) {
	for _, sc := range traces.Scenarios() {
		t.Run(sc.Name, func(t *testing.T) {
			actions, err := sc.Expand(model.New(model.Config{}))
			if err != nil {
				t.Fatal(err)
			}
			m := recordActions(t, model.New(model.Config{}), actions)

			s, err := NewStepped(SteppedConfig{Store: storetest.Store(t)})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			impl := recordActions(t, s, actions)
			t.Logf("%d actions: model %v, impl %v", len(actions), m.took, impl.took)

			requireSameTrace(t, m.events, impl.events, "model (a) and implementation (b) traces")
			golden, err := traces.ReadFile(filepath.Join(goldenTraces, sc.Name+".jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			requireSameTrace(t, golden, impl.events, "golden (a) and implementation (b) traces")
			if err := model.Converged(s.Snapshot()); err != nil {
				t.Fatalf("implementation did not converge: %v", err)
			}
			if errs := s.Errors(); len(errs) > 0 {
				t.Fatalf("implementation errors: %v", errs)
			}
			if _, more := s.NextQuiesceStep(); more {
				t.Fatal("implementation still has work after the scenario")
			}
		})
	}
}

// TestImplTraceRecordsEtcdRevisions checks that the implementation's trace,
// unlike the model's, carries etcd revisions, which masking then hides.
func TestImplTraceRecordsEtcdRevisions(t *testing.T) {
	sc, ok := traces.ScenarioNamed("seed-pod")
	if !ok {
		t.Fatal("no seed-pod scenario")
	}
	actions, err := sc.Expand(model.New(model.Config{}))
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewStepped(SteppedConfig{Store: storetest.Store(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	run := recordActions(t, s, actions)
	revs := 0
	for _, e := range run.events {
		for _, w := range e.Writes {
			if w.Rev != 0 {
				revs++
			}
		}
	}
	if revs == 0 {
		t.Fatal("no write in the implementation's trace carries an etcd revision")
	}
}

// TestReplayGoldenOnMutantDeparts replays a golden trace on an
// implementation running a wrong endpoints controller: the replay must stop
// at that controller's first different write, so the comparison above can
// fail.
func TestReplayGoldenOnMutantDeparts(t *testing.T) {
	golden, err := traces.ReadFile(filepath.Join(goldenTraces, "seed-deployment.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewStepped(SteppedConfig{Store: storetest.Store(t), Decisions: decide.EndpointsListsUnready})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	rep, err := traces.Replay(golden, s)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Reproduced() {
		t.Fatal("the mutant reproduced the golden trace")
	}
	d := rep.Departure
	if d.Got.Actor != model.EndpointsController || rep.Steps != d.Seq {
		t.Fatalf("departure at seq %d after %d steps by %s, want the endpoints controller: %s", d.Seq, rep.Steps, d.Got.Actor, d.Reason)
	}
}

// BenchmarkScenario times each scenario on the model and on the stepped
// implementation (one fresh cluster per iteration).
func BenchmarkScenario(b *testing.B) {
	for _, sc := range traces.Scenarios() {
		actions, err := sc.Expand(model.New(model.Config{}))
		if err != nil {
			b.Fatal(err)
		}
		b.Run(sc.Name+"/model", func(b *testing.B) {
			for b.Loop() {
				st := model.New(model.Config{})
				for _, a := range actions {
					st.Step(a)
				}
			}
		})
		b.Run(sc.Name+"/impl", func(b *testing.B) {
			for b.Loop() {
				s, err := NewStepped(SteppedConfig{Store: storetest.Store(b)})
				if err != nil {
					b.Fatal(err)
				}
				for _, a := range actions {
					s.Step(a)
				}
				if err := model.Converged(s.Snapshot()); err != nil {
					b.Fatal(err)
				}
				s.Close()
			}
		})
	}
}
