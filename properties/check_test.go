package properties

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/converge-dev/converge/impl/cluster"
	"github.com/converge-dev/converge/impl/store/storetest"
	"github.com/converge-dev/converge/model"
	"github.com/converge-dev/converge/properties/mutants/decide"
)

func TestCampaignOnTheModelPasses(t *testing.T) {
	var last Progress
	out, err := Campaign{Checks: 20, Steps: 30, Seed: 7, Faults: true, Progress: func(p Progress) { last = p }}.Run()
	if err != nil {
		t.Fatal(err)
	}
	if out.Failure != nil {
		t.Fatalf("correct model failed: %s\n%s", out.Failure.Msg, out.Report)
	}
	if out.Checks != 20 || last.Checks != 20 || last.Failures != 0 {
		t.Fatalf("checks = %d, progress %+v; want 20 passed", out.Checks, last)
	}
}

func TestCampaignCatchesAMutantAndItsScriptReplays(t *testing.T) {
	c := Campaign{Checks: 1000, Seed: 2, Faults: true, Decisions: decide.ReplicaSetNoExpectations, ShrinkTime: 2 * time.Second}
	out, err := c.Run()
	if err != nil {
		t.Fatal(err)
	}
	if out.Failure == nil {
		t.Fatalf("mutant not caught in %d checks", out.Checks)
	}
	if len(out.Script) == 0 || out.Failure.Step != len(out.Script) || !strings.Contains(out.Failure.Msg, "invariant violated") {
		t.Fatalf("failure %+v with a %d-action script; report:\n%s", out.Failure, len(out.Script), out.Report)
	}
	t.Logf("caught after %d checks: %s\n%s", out.Checks, out.Failure.Msg, out.Script)
	for i := 0; i < 2; i++ {
		err := ReplayModel(strings.NewReader(scriptText(out.Script)), model.Config{Decisions: c.Decisions})
		var f *Failure
		if !errors.As(err, &f) || *f != *out.Failure {
			t.Fatalf("model replay %d: got %v, want %+v", i, err, out.Failure)
		}
	}
}

func TestCampaignInLockstepPasses(t *testing.T) {
	started := 0
	c := Campaign{Checks: 3, Steps: 20, Seed: 1, Faults: true, Target: TargetLockstep,
		NewStepped: func(d model.Decisions) (*cluster.Stepped, error) {
			started++
			return cluster.NewStepped(cluster.SteppedConfig{Store: storetest.Store(t), Decisions: d})
		}}
	out, err := c.Run()
	if err != nil {
		t.Fatal(err)
	}
	if out.Failure != nil || out.Checks != 3 || started != 3 {
		t.Fatalf("outcome %+v after %d clusters; want 3 checks passed on 3 fresh clusters", out, started)
	}
}

func TestCampaignRejectsBadSettings(t *testing.T) {
	for _, c := range []Campaign{{Target: "etcd"}, {Target: TargetLockstep}, {Checks: -1}} {
		if _, err := c.Run(); !errors.Is(err, ErrBadCampaign) {
			t.Errorf("%+v: err = %v, want ErrBadCampaign", c, err)
		}
	}
}

// scriptText renders a script as a file: one action per line.
func scriptText(s Script) string {
	var b strings.Builder
	for _, a := range s {
		b.WriteString(a.String() + "\n")
	}
	return b.String()
}
