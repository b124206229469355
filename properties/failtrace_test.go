package properties

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
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

// TestFailureTracesOfTestsAndSeedsDoNotCollide: checks side by side (two
// tests, or one test on two seeds, or two processes of rapid's own seed)
// save their traces to different files; the same test and seed to the
// same file, which rapid's replays of one failure need; and
// CONVERGE_FAILURE_TRACE still picks the file.
func TestFailureTracesOfTestsAndSeedsDoNotCollide(t *testing.T) {
	t.Setenv(FailureTraceEnv, "")
	a, b := failureTracePath("TestA", 7), failureTracePath("TestB", 7)
	if a == b || failureTracePath("TestA", 8) == a {
		t.Fatalf("tests or seeds share a trace: %s", a)
	}
	if failureTracePath("TestA", 7) != a {
		t.Fatal("one test and seed moved its trace")
	}
	if own := failureTracePath("TestA", 0); !strings.Contains(own, fmt.Sprintf("pid%d", os.Getpid())) {
		t.Fatalf("a seed rapid picked gives %s, which names no process", own)
	}
	if sub := failureTracePath("TestA/sub case", 7); filepath.Dir(sub) != os.TempDir() || strings.ContainsAny(filepath.Base(sub), "/ ") {
		t.Fatalf("a subtest's trace is %s", sub)
	}
	want := filepath.Join(t.TempDir(), "mine.jsonl")
	t.Setenv(FailureTraceEnv, want)
	if got := failureTracePath("TestA", 7); got != want {
		t.Fatalf("%s picks %s, not %s", FailureTraceEnv, got, want)
	}
}
