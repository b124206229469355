package properties

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/converge-dev/converge/impl/cluster"
	"github.com/converge-dev/converge/impl/store/storetest"
	"github.com/converge-dev/converge/model"
	"github.com/converge-dev/converge/properties/mutants/decide"
)

// stepped starts a stepped cluster running mutant on a fresh key prefix.
func stepped(t *testing.T, decisions model.Decisions) *cluster.Stepped {
	t.Helper()
	s, err := cluster.NewStepped(cluster.SteppedConfig{Store: storetest.Store(t), Decisions: decisions})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

func readScript(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A mutant's counterexample, found on the model, fails in lockstep with the
// mutant on both sides at the same step with the same invariant, twice in a
// row; the correct code passes the same script.
func TestReplayReproducesAMutantCounterexample(t *testing.T) {
	text := readScript(t, "testdata/replicaset-no-expectations.script")
	cfg := model.Config{Decisions: decide.ReplicaSetNoExpectations}
	var onModel *Failure
	if err := ReplayModel(strings.NewReader(text), cfg); !errors.As(err, &onModel) {
		t.Fatalf("model replay: %v, want a failure", err)
	}
	var first *Failure
	for i := 0; i < 2; i++ {
		err := ReplayScript(strings.NewReader(text), stepped(t, cfg.Decisions), ReplayOptions{Model: cfg})
		var f *Failure
		if !errors.As(err, &f) {
			t.Fatalf("replay %d: %v, want a failure", i, err)
		}
		if f.Step != onModel.Step || f.Msg != "model: "+onModel.Msg {
			t.Fatalf("replay %d failed at step %d with %q; the model property failed at step %d with %q", i, f.Step, f.Msg, onModel.Step, onModel.Msg)
		}
		if first != nil && *f != *first {
			t.Fatalf("replays differ: %+v then %+v", first, f)
		}
		first = f
	}
	if err := ReplayScript(strings.NewReader(text), stepped(t, nil), ReplayOptions{}); err != nil {
		t.Fatalf("the correct code fails the script: %v", err)
	}
}

// A mutant on the implementation alone makes lockstep diverge: the replay
// names the same first differing step (here while quiescing, when the
// endpoints controller first sees the unready pod), with the same message,
// twice.
func TestReplayReproducesADivergence(t *testing.T) {
	const text = `# endpoints-lists-unready on the implementation only
add-node node-1
apply-service web app=web port=80
apply web replicas=1 image=nginx:1
deliver deployment-controller deployments
reconcile deployment-controller web
`
	var first *Failure
	for i := 0; i < 2; i++ {
		err := ReplayScript(strings.NewReader(text), stepped(t, decide.EndpointsListsUnready), ReplayOptions{})
		var f *Failure
		if !errors.As(err, &f) || !strings.Contains(f.Msg, "differ") {
			t.Fatalf("replay %d: %v, want a divergence", i, err)
		}
		if first != nil && *f != *first {
			t.Fatalf("replays differ: %+v then %+v", first, f)
		}
		first = f
	}
	t.Logf("step %d: %s", first.Step, first.Msg)
}

func TestReplayRejectsBadScripts(t *testing.T) {
	for _, text := range []string{"fly away\n", "apply web replicas=x image=a\n", "scale web\n"} {
		if err := ReplayScript(strings.NewReader(text), stepped(t, nil), ReplayOptions{}); !errors.Is(err, ErrBadScript) {
			t.Errorf("%q: err = %v, want ErrBadScript", text, err)
		}
	}
}
