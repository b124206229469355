package model

import (
	"bufio"
	"math/rand/v2"
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

// TestQuiesceSearchMatchesAFullScan: NextQuiesceStep resumes its search
// for a delivery where the last one ended (State.undelivered); under any
// interleaving of steps, faults and user actions it must pick what a scan
// of every component from the first would.
func TestQuiesceSearchMatchesAFullScan(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 2))
	for run := range 20 {
		st := New(Config{})
		for _, line := range []string{"add-node node-1", "add-node node-2", "apply web replicas=3 image=nginx:1", "apply-service web app=web port=80"} {
			a, err := ParseAction(line)
			if err != nil {
				t.Fatal(err)
			}
			st.Step(a)
		}
		for i := range 400 {
			got, ok := st.NextQuiesceStep()
			want, wantOK := Action{}, false
			for _, n := range st.names {
				if ds := st.enabledDeliveries(n); len(ds) > 0 {
					want, wantOK = ds[0], true
					break
				}
			}
			if wantOK && (!ok || got != want) {
				t.Fatalf("run %d step %d: NextQuiesceStep = %v, a full scan gives %v", run, i, got, want)
			}
			// Mostly the quiesce schedule, sometimes any enabled action.
			a := got
			if all := st.Enabled(); !ok || (len(all) > 0 && rnd.IntN(4) == 0) {
				if len(all) == 0 {
					break
				}
				a = all[rnd.IntN(len(all))]
			}
			st.Step(a)
		}
	}
}
