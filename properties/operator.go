package properties

import (
	"context"
	"sync"
	"testing"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/runtime"
	"pgregory.net/rapid"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/impl/registry"
	"github.com/converge-dev/converge/impl/store/storetest"
	"github.com/converge-dev/converge/properties/crdgen"
)

// Operator is an unmodified controller-runtime operator to check: its CRDs,
// its scheme and its own setup. Only the first three fields are needed.
type Operator struct {
	// CRDs is the directory of the operator's CRD manifests, as kubebuilder
	// lays them out (config/crd/bases).
	CRDs string
	// Scheme holds the operator's types and the built-ins it uses.
	Scheme *runtime.Scheme
	// Setup wires the reconcilers into the manager, as cmd/main.go does:
	// usually SetupWithManager. It runs again after every crash.
	Setup func(mgr ctrl.Manager) error

	// Kinds are the custom resources a user creates, by plural
	// ("webapps"); default every kind the CRDs define. Leave out the ones
	// only the operator makes.
	Kinds []string
	// Namespaces are where custom resources are created; default
	// "default".
	Namespaces []string
	// Names are the custom resources' names, per kind; default "a" and
	// "b". Few names make updates and deletes of one object likely.
	Names []string
	// Fields constrains the generated custom resources, per plural
	// resource ("webapps"): crdgen.WithField and the like.
	Fields map[string][]crdgen.Option
	// NoFaults turns off the faults: crashes (within a reconcile too),
	// restarts against a lagging apiserver, dropped watches, transient
	// API errors, and the control plane's own faults; the world faults
	// (NoWorldFaults) are drawn among them, so it turns those off too.
	NoFaults bool
	// NoWorldFaults turns off the faults of the managed application's
	// world, which are on by default: images that do not pull
	// (ErrImagePull, then ImagePullBackOff), containers killed for memory
	// or crashing (OOMKilled, CrashLoopBackOff), readiness probes that fail
	// and pass again (ContainersNotReady); model/world.go. The
	// differential's reference run sees the same world (an image that
	// fails here fails there), so an honest operator passes with them.
	// Turn them off for an operator whose children run no pods the
	// kubelet reports on, or to bisect a failure.
	NoWorldFaults bool
	// Invariant, if set, is checked after every step, on the objects as
	// stored.
	Invariant func(ctx context.Context, c client.Reader) error
	// Converged, if set, is checked once the run has quiesced.
	Converged func(ctx context.Context, c client.Reader) error
	// Skip turns oracles off by name, each with the reason it does not
	// apply to this operator: {"status-honesty": "Ready means the spec
	// was accepted, not that the app runs"}. SkippableOracles lists
	// the names.
	Skip map[string]string
}

// CheckOperator checks an operator in `go test`: random interleavings of
// custom-resource creates, updates and deletes, another writer's edits of
// what the operator owns, the operator's event deliveries and reconciles
// (side by side, parked before each write, for a controller whose
// MaxConcurrentReconciles is above 1), the built-in control plane's
// steps, and faults; after every step the
// reconciles must not panic or fail, the built-in invariants must hold,
// and no custom resource may say Ready while a child it controls has never
// been Current (status honesty); at the end the run must quiesce on events
// alone, converge, keep no running pod on config it read before a change
// (env), match a fault-free run of the same inputs (the differential),
// and stay put under a resync (the fixed point; a drift repaired only
// then is a missing watch). A reconcile that returns its own object's
// NotFound once the object is gone fails (controller-runtime would retry
// it forever); a child write the apiserver refuses (422) for a value the
// user wrote, passed on verbatim, is the user's input refused, noted on
// the step. A failure prints the shrunk steps and how to replay them; one
// that the same steps do not reproduce is reported as the operator's
// nondeterminism, with the first differing write of each run. Add
// `func TestMain(m *testing.M) { properties.Main(m) }` to the
// test package to stop the embedded etcd at the end.
func CheckOperator(t *testing.T, op Operator) {
	t.Helper()
	CheckOperatorTB(t, t, op)
}

// CheckOperatorTB is CheckOperator reporting to any rapid.TB (a test that
// expects a failure passes its own); stores come from t.
func CheckOperatorTB(tb rapid.TB, t testing.TB, op Operator) {
	tb.Helper()
	checkOperator(tb, t, op, &determinism{}, nil)
}

// OperatorProperty is the body of one check of CheckOperator, for a
// campaign that runs rapid itself; stores come from t.
func OperatorProperty(t testing.TB, op Operator) func(*rapid.T) {
	shared := newOperatorShared(op)
	return func(rt *rapid.T) { runOperator(rt, t, op, shared) }
}

// newOperatorShared is what the checks of one property of op share.
func newOperatorShared(op Operator) *operatorShared {
	silenceControllerRuntime()
	return &operatorShared{crds: sync.OnceValues(func() ([]*api.CustomResourceDefinition, error) { return registry.ReadCRDs(op.CRDs) })}
}

// FuzzOperator is CheckOperator as a Go fuzz target body: `go test
// -fuzz=FuzzX` explores the operator coverage-guided, and a crasher
// replays as the same steps. Use it as
//
//	func FuzzWebApp(f *testing.F) { f.Fuzz(properties.FuzzOperator(f, op)) }
func FuzzOperator(f *testing.F, op Operator) func(*testing.T, []byte) {
	f.Helper()
	return func(t *testing.T, data []byte) {
		rapid.MakeFuzz(OperatorProperty(t, op))(t, data)
	}
}

// storeFor is the store of one run.
var storeFor = storetest.Store

// quietLogs: the operator's logs go nowhere (its manager logs to a
// discarding logger), and controller-runtime would otherwise warn, with a
// stack, that its global logger was never set.
var quietLogs sync.Once

func silenceControllerRuntime() {
	quietLogs.Do(func() { ctrllog.SetLogger(logr.Discard()) })
}
