package properties

import (
	"testing"

	"pgregory.net/rapid"

	"github.com/converge-dev/converge/impl/cluster"
	"github.com/converge-dev/converge/impl/store/storetest"
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
