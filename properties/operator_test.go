package properties_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/converge-dev/converge/properties"
	fleetv1 "github.com/converge-dev/converge/properties/testdata/fleet/api/v1"
	"github.com/converge-dev/converge/properties/testdata/fleet/controller"
)

func fleetScheme() *runtime.Scheme {
	s := runtime.NewScheme()
	_ = clientgoscheme.AddToScheme(s)
	_ = fleetv1.AddToScheme(s)
	return s
}

// TestCheckOperatorOnASecondOperator: the same check, unchanged, on an
// operator of another shape, whose custom resources own custom resources
// (Fleets own Ships), with a user invariant read through a
// controller-runtime client.
func TestCheckOperatorOnASecondOperator(t *testing.T) {
	properties.CheckOperator(t, properties.Operator{
		CRDs:   "testdata/fleet/config/crd/bases",
		Scheme: fleetScheme(),
		Setup:  controller.Setup,
		Kinds:  []string{"fleets"}, // Ships are the operator's to make
		Invariant: func(ctx context.Context, c client.Reader) error {
			var ships fleetv1.ShipList
			if err := c.List(ctx, &ships); err != nil {
				return err
			}
			for _, s := range ships.Items {
				if len(s.OwnerReferences) != 1 {
					return fmt.Errorf("ship %s has %d owners", s.Name, len(s.OwnerReferences))
				}
			}
			return nil
		},
	})
}

// TestCheckOperatorReportsAPanic: a reconciler that panics fails the check,
// and the failure names the panic and prints the steps.
func TestCheckOperatorReportsAPanic(t *testing.T) {
	rep := properties.NewReport(t.Name())
	properties.CheckOperatorTB(rep, t, properties.Operator{
		CRDs:   "testdata/fleet/config/crd/bases",
		Scheme: fleetScheme(),
		Setup: func(mgr ctrl.Manager) error {
			return ctrl.NewControllerManagedBy(mgr).For(&fleetv1.Fleet{}).Complete(reconcile.Func(
				func(context.Context, reconcile.Request) (reconcile.Result, error) {
					panic("the fleet reconciler fell over")
				}))
		},
	})
	if !rep.Failed() {
		t.Fatal("a panicking reconciler passed")
	}
	for _, want := range []string{"panicked: the fleet reconciler fell over", "drawn actions"} {
		if !strings.Contains(rep.Text(), want) {
			t.Errorf("the report lacks %q:\n%s", want, rep.Text())
		}
	}
}
