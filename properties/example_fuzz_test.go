package properties_test

import (
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/converge-dev/converge/properties"
	fleetv1 "github.com/converge-dev/converge/properties/testdata/fleet/api/v1"
	"github.com/converge-dev/converge/properties/testdata/fleet/controller"
)

// The operator of ExampleCheckOperator as a fuzz target: `go test
// -fuzz=FuzzFleet` explores its interleavings coverage-guided, and a
// crasher in testdata/fuzz replays as the same steps on every `go test`.
func ExampleFuzzOperator() {
	_ = func(f *testing.F) { // a fuzz target, as it would appear in a _test.go file (FuzzFleet)
		scheme := runtime.NewScheme()
		_ = clientgoscheme.AddToScheme(scheme)
		_ = fleetv1.AddToScheme(scheme)
		f.Fuzz(properties.FuzzOperator(f, properties.Operator{
			CRDs:   "config/crd/bases",
			Scheme: scheme,
			Setup: func(mgr ctrl.Manager) error {
				return (&controller.FleetReconciler{Client: mgr.GetClient(), Scheme: mgr.GetScheme()}).SetupWithManager(mgr)
			},
		}))
	}
}
