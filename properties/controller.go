package properties

import (
	"context"
	"testing"

	"pgregory.net/rapid"

	"github.com/converge-dev/converge/impl/cluster"
	"github.com/converge-dev/converge/impl/store/storetest"
)

// CheckController is the entry point for a user's controller: it runs the
// implementation-only property (Impl) with the controller in place of the
// built-in component of the same name, or added as a new one, each check
// on a fresh cluster over the test binary's embedded etcd. more are
// further specs of the same cluster: cluster.Disabled(a built-in) with a
// component of your own beside it, or a second controller that works
// with the first. Add `func TestMain(m *testing.M) { properties.Main(m) }`
// to the test package to stop etcd and remove its directory at the end.
func CheckController(t *testing.T, spec cluster.ControllerSpec, o ImplOptions, more ...cluster.ControllerSpec) {
	t.Helper()
	CheckControllerTB(t, t, spec, o, more...)
}

// CheckControllerTB is CheckController reporting to any rapid.TB (a test
// that expects a failure passes its own); stores come from t. It draws
// with settles (ImplOptions.Settle), so that runs finish rollouts, unless
// o.Uniform asks for DrawAction's uniform draws. It runs through Check, so
// CONVERGE_SHARD, CONVERGE_SEED and CONVERGE_REPORT shard it across CI jobs.
func CheckControllerTB(tb rapid.TB, t testing.TB, spec cluster.ControllerSpec, o ImplOptions, more ...cluster.ControllerSpec) {
	o.Settle = !o.Uniform
	specs := append([]cluster.ControllerSpec{spec}, more...)
	Check(tb, func(rt *rapid.T) {
		st := storetest.Store(t)
		defer st.Drop(context.Background()) // a long campaign would fill etcd
		s, err := cluster.NewStepped(cluster.SteppedConfig{Store: st, Controllers: specs})
		if err != nil {
			rt.Fatal(err)
		}
		defer s.Close()
		if o.NoWorldFaults {
			s.DisableWorldFaults()
		}
		Impl(rt, s, o)
	})
}
