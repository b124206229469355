package operator_test

import (
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"pgregory.net/rapid"
	ctrl "sigs.k8s.io/controller-runtime"

	webappv1 "github.com/converge-dev/converge/examples/operator/api/v1"
	"github.com/converge-dev/converge/examples/operator/internal/controller"
	"github.com/converge-dev/converge/impl/store/storetest"
	"github.com/converge-dev/converge/properties"
	"github.com/converge-dev/converge/properties/crdgen"
)

func TestMain(m *testing.M) { storetest.Main(m) }

func newScheme() *runtime.Scheme {
	s := runtime.NewScheme()
	_ = clientgoscheme.AddToScheme(s)
	_ = webappv1.AddToScheme(s)
	return s
}

var images = rapid.Map(rapid.SampledFrom(properties.ImageNames), func(s string) any { return s })

// TestWebApp checks the operator as it ships, with faults.
func TestWebApp(t *testing.T) {
	properties.CheckOperator(t, properties.Operator{
		CRDs:   "config/crd/bases",
		Scheme: newScheme(),
		Setup: func(mgr ctrl.Manager) error {
			return (&controller.WebAppReconciler{Client: mgr.GetClient(), Scheme: mgr.GetScheme()}).SetupWithManager(mgr)
		},
		// Optional: images the nodes can pull, not any string the schema allows.
		Fields: map[string][]crdgen.Option{"webapps": {crdgen.WithField("spec.image", images)}},
	})
}
