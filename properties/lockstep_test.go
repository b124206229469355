package properties

import (
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/converge-dev/converge/impl/cluster"
	"github.com/converge-dev/converge/impl/store/storetest"
	"github.com/converge-dev/converge/model"
)

// newStepped starts a stepped cluster on a fresh key prefix of the test
// binary's etcd.
func newStepped(t *testing.T, rt *rapid.T) *cluster.Stepped {
	s, err := cluster.NewStepped(cluster.SteppedConfig{Store: storetest.Store(t)})
	if err != nil {
		rt.Fatal(err)
	}
	return s
}

func TestLockstepWithoutFaults(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		s := newStepped(t, rt)
		defer s.Close()
		Lockstep(rt, s, LockstepOptions{})
	})
}

func TestLockstepWithFaults(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		s := newStepped(t, rt)
		defer s.Close()
		Lockstep(rt, s, LockstepOptions{Faults: true})
	})
}

// TestLockstepWithTimeTravel draws the time-travel fault with the others:
// the model and the implementation restart a component at the revisions
// its informers had reached and must agree through its catching up.
func TestLockstepWithTimeTravel(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		s := newStepped(t, rt)
		defer s.Close()
		Lockstep(rt, s, LockstepOptions{Faults: true, TimeTravel: TimeTravelers()})
	})
}

func TestTimeTravelIsDrawnForTheNamedComponentsOnly(t *testing.T) {
	st := model.New(model.Config{})
	st.Step(model.Action{Op: model.OpAddNode, Who: NodeNames[0]})
	if slices.ContainsFunc(withTimeTravel(st, nil).EnabledFaults(), isTimeTravel) {
		t.Fatal("time travel drawn without being asked for")
	}
	var got []string
	for _, a := range withTimeTravel(st, TimeTravelers()).EnabledFaults() {
		if isTimeTravel(a) {
			got = append(got, a.Who)
		}
	}
	if len(got) == 0 || slices.Contains(got, model.ReplicaSetController) {
		t.Fatalf("time travel drawn for %v", got)
	}
}

func isTimeTravel(a model.Action) bool { return a.Op == model.OpTimeTravel }
