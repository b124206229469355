package model

import (
	"bufio"
	"os"
	"strings"
	"testing"
)

// TestRetriesDoNotStarveEachOther replays a campaign's counterexample: the
// deployment controller's key fails on every retry until the garbage
// collector's failed key is retried. Offering retries in name order
// retried the deployment controller's forever.
func TestRetriesDoNotStarveEachOther(t *testing.T) {
	st := New(Config{})
	runScriptFile(t, st, "testdata/scripts/retry-starvation.script")
	for _, a := range st.Recovery() {
		st.Step(a)
	}
	if _, err := st.Quiesce(5000); err != nil {
		t.Fatal(err)
	}
	if err := Converged(st.Snapshot()); err != nil {
		t.Fatal(err)
	}
}

func TestRetryOrderStartsAfterTheLastRetried(t *testing.T) {
	names := []string{"a", "b", "c"}
	for last, want := range map[string]string{"": "a b c", "a": "b c a", "b": "c a b", "c": "a b c", "bb": "c a b", "z": "a b c"} {
		if got := strings.Join(RetryOrder(names, last), " "); got != want {
			t.Errorf("RetryOrder(%v, %q) = %q, want %q", names, last, got, want)
		}
	}
}

// runScriptFile applies each action of a script file (one per line, #
// comments) and fails on an action that is not enabled.
func runScriptFile(t *testing.T, st *State, path string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		a, err := ParseAction(line)
		if err != nil {
			t.Fatal(err)
		}
		if r := st.Step(a); r.Err != nil && strings.Contains(r.Err.Error(), ErrNotEnabled.Error()) {
			t.Fatalf("%s: %v", line, r.Err)
		}
	}
}
