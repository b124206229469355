package operator_test

import (
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"pgregory.net/rapid"
	ctrl "sigs.k8s.io/controller-runtime"

	webappv1 "github.com/converge-dev/converge/examples/operator/api/v1"
	"github.com/converge-dev/converge/examples/operator/internal/controller"
	"github.com/converge-dev/converge/properties"
	"github.com/converge-dev/converge/properties/crdgen"
)

func TestMain(m *testing.M) { properties.Main(m) }

// TestWebApp checks the operator as it ships: interleavings with faults,
// and every oracle.
func TestWebApp(t *testing.T) {
	properties.CheckOperator(t, webApp())
}

// FuzzWebApp is the same check, coverage-guided: go test -fuzz=FuzzWebApp.
func FuzzWebApp(f *testing.F) {
	f.Fuzz(properties.FuzzOperator(f, webApp()))
}

func webApp() properties.Operator {
	s := runtime.NewScheme()
	_ = clientgoscheme.AddToScheme(s)
	_ = webappv1.AddToScheme(s)
	return properties.Operator{
		CRDs:   "config/crd/bases",
		Scheme: s,
		Setup: func(mgr ctrl.Manager) error {
			return (&controller.WebAppReconciler{Client: mgr.GetClient(), Scheme: mgr.GetScheme()}).SetupWithManager(mgr)
		},
		// Optional: images the nodes can pull, not any string the schema allows.
		Fields: map[string][]crdgen.Option{"webapps": {crdgen.WithField("spec.image", images)}},
	}
}

var images = rapid.Map(rapid.SampledFrom(properties.ImageNames), func(s string) any { return s })
