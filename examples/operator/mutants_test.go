package operator_test

import (
	"testing"
	"time"

	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/converge-dev/converge/examples/operator/internal/controller"
	"github.com/converge-dev/converge/properties"
	"github.com/converge-dev/converge/properties/crdgen"
)

// TestMutantsAreCaught: each seeded bug of the example operator fails the
// same check that the operator as shipped passes.
func TestMutantsAreCaught(t *testing.T) {
	for _, bug := range controller.Bugs {
		t.Run(string(bug), func(t *testing.T) {
			rep := properties.NewReport(t.Name())
			start := time.Now()
			properties.CheckOperatorTB(rep, t, properties.Operator{
				CRDs:   "config/crd/bases",
				Scheme: newScheme(),
				Setup: func(mgr ctrl.Manager) error {
					return (&controller.WebAppReconciler{Client: mgr.GetClient(), Scheme: mgr.GetScheme(), Bug: bug}).SetupWithManager(mgr)
				},
				Fields: map[string][]crdgen.Option{"webapps": {crdgen.WithField("spec.image", images)}},
			})
			if !rep.Failed() {
				t.Fatalf("the %s mutant passed", bug)
			}
			t.Logf("caught in %s:\n%s", time.Since(start).Round(time.Millisecond), firstLines(rep.Text(), 40))
		})
	}
}

func firstLines(s string, n int) string {
	lines := 0
	for i, c := range s {
		if c == '\n' {
			lines++
			if lines == n {
				return s[:i]
			}
		}
	}
	return s
}
