package properties

import (
	"path/filepath"
	"testing"

	"pgregory.net/rapid"

	"github.com/converge-dev/converge/model"
	"github.com/converge-dev/converge/properties/mutants/decide"
	"github.com/converge-dev/converge/traces"
)

// TestCounterexampleIsSavedAsAReplayableTrace: a failing property leaves
// its shrunk counterexample as a trace, and replaying that trace on the
// same (buggy) model reproduces it exactly.
func TestCounterexampleIsSavedAsAReplayableTrace(t *testing.T) {
	path := filepath.Join(t.TempDir(), "failure.jsonl")
	t.Setenv(FailureTraceEnv, path)
	defer SetRapidFlags(t, map[string]string{"rapid.checks": "1000", "rapid.seed": "3", "rapid.nofailfile": "true"})()
	cfg := model.Config{Decisions: decide.GCTrustsCache}
	tb := NewReport(t.Name())
	rapid.Check(tb, func(rt *rapid.T) { Model(rt, cfg) })
	if !tb.failed {
		t.Fatal("the mutant was not caught")
	}
	events, err := traces.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(events) == 0 {
		t.Fatal("the saved trace is empty")
	}
	rep, err := traces.Replay(events, model.New(cfg))
	if err != nil || !rep.Reproduced() {
		t.Fatalf("replay of the saved counterexample: %v, %+v", err, rep.Departure)
	}
	if rep2, _ := traces.Replay(events, model.New(model.Config{})); rep2.Reproduced() {
		t.Fatal("the correct model reproduces the mutant's trace: the trace shows nothing")
	}
	t.Logf("saved and replayed a %d-event counterexample", len(events))
}
