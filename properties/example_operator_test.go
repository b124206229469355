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

// The ten lines an operator's test needs: its CRDs, its scheme, and its
// own SetupWithManager. In a test package, also add
// `func TestMain(m *testing.M) { properties.Main(m) }`.
func ExampleCheckOperator() {
	_ = func(t *testing.T) { // a test function, as it would appear in a _test.go file
		scheme := runtime.NewScheme()
		_ = clientgoscheme.AddToScheme(scheme)
		_ = fleetv1.AddToScheme(scheme)
		properties.CheckOperator(t, properties.Operator{
			CRDs:   "config/crd/bases",
			Scheme: scheme,
			Setup: func(mgr ctrl.Manager) error {
				return (&controller.FleetReconciler{Client: mgr.GetClient(), Scheme: mgr.GetScheme()}).SetupWithManager(mgr)
			},
		})
	}
}
