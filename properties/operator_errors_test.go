package properties_test

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"pgregory.net/rapid"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/converge-dev/converge/properties"
	"github.com/converge-dev/converge/properties/crdgen"
	fleetv1 "github.com/converge-dev/converge/properties/testdata/fleet/api/v1"
)

// fleetOperator is a one-controller operator of Fleets (and the
// ConfigMaps it owns) around reconcile.
func fleetOperator(rec func(ctx context.Context, c client.Client, req reconcile.Request) error) properties.Operator {
	return properties.Operator{
		CRDs:   "testdata/fleet/config/crd/bases",
		Scheme: fleetScheme(),
		Kinds:  []string{"fleets"},
		Setup: func(mgr ctrl.Manager) error {
			c := mgr.GetClient()
			return ctrl.NewControllerManagedBy(mgr).For(&fleetv1.Fleet{}).Owns(&corev1.ConfigMap{}).Complete(reconcileFunc(
				func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
					return reconcile.Result{}, rec(ctx, c, req)
				}))
		},
	}
}

type reconcileFunc func(context.Context, reconcile.Request) (reconcile.Result, error)

func (f reconcileFunc) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	return f(ctx, req)
}

// TestCheckOperatorCatchesTheNotFoundOfItsOwnObject: a reconciler that
// returns its Fleet's NotFound once the Fleet is deleted (no
// client.IgnoreNotFound) is retried forever, and fails the check.
func TestCheckOperatorCatchesTheNotFoundOfItsOwnObject(t *testing.T) {
	defer properties.SetRapidFlags(t, map[string]string{"rapid.checks": "50", "rapid.shrinktime": "1ns", "rapid.nofailfile": "true"})()
	rep := properties.NewReport(t.Name())
	properties.CheckOperatorTB(rep, t, fleetOperator(func(ctx context.Context, c client.Client, req reconcile.Request) error {
		var f fleetv1.Fleet
		return c.Get(ctx, req.NamespacedName, &f) // the bug: the primary's NotFound is returned
	}))
	if !rep.Failed() || !strings.Contains(rep.Text(), "not found of its own object") {
		t.Fatalf("the primary's NotFound passed:\n%s", rep.Text())
	}
}

// TestCheckOperatorToleratesTheNotFoundOfAChild: a reconciler that
// creates its ConfigMap (named like the Fleet) when its cache lacks it,
// and returns the cache's NotFound to be retried, passes: a child's
// NotFound through a cache that lags the store ends with the retry.
func TestCheckOperatorToleratesTheNotFoundOfAChild(t *testing.T) {
	defer properties.SetRapidFlags(t, map[string]string{"rapid.checks": "30"})()
	properties.CheckOperator(t, fleetOperator(func(ctx context.Context, c client.Client, req reconcile.Request) error {
		var f fleetv1.Fleet
		if err := c.Get(ctx, req.NamespacedName, &f); err != nil {
			return client.IgnoreNotFound(err)
		}
		if !f.DeletionTimestamp.IsZero() {
			return nil
		}
		var cm corev1.ConfigMap
		err := c.Get(ctx, req.NamespacedName, &cm)
		if !apierrors.IsNotFound(err) {
			return err
		}
		cm = corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: f.Namespace, Name: f.Name}}
		if err := controllerutil.SetControllerReference(&f, &cm, c.Scheme()); err != nil {
			return err
		}
		if err := c.Create(ctx, &cm); client.IgnoreAlreadyExists(err) != nil {
			return err
		}
		return err // the child's NotFound, from a stale cache: retried
	}))
}

// labelOperator is an operator of Ships that labels a ConfigMap of each
// with value(ship): a label value has a syntax the apiserver checks.
func labelOperator(value func(*fleetv1.Ship) string) properties.Operator {
	return labelOperatorHandling(value, false)
}

// labelOperatorHandling is labelOperator; with handle, a refusal (422) of
// the ConfigMap is logged and the reconcile succeeds, as an operator
// that reports an invalid spec in its status does.
func labelOperatorHandling(value func(*fleetv1.Ship) string, handle bool) properties.Operator {
	return properties.Operator{
		CRDs:   "testdata/fleet/config/crd/bases",
		Scheme: fleetScheme(),
		Kinds:  []string{"ships"},
		// The user's input: a fleet name that is no valid label value.
		Fields: map[string][]crdgen.Option{"ships": {crdgen.WithField("spec.fleet", rapid.Just[any](" AA`"))}},
		Setup: func(mgr ctrl.Manager) error {
			c := mgr.GetClient()
			return ctrl.NewControllerManagedBy(mgr).For(&fleetv1.Ship{}).Owns(&corev1.ConfigMap{}).Complete(reconcileFunc(
				func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
					var s fleetv1.Ship
					if err := c.Get(ctx, req.NamespacedName, &s); err != nil || !s.DeletionTimestamp.IsZero() {
						return reconcile.Result{}, client.IgnoreNotFound(err)
					}
					cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: s.Namespace, Name: s.Name + "-labels"}}
					_, err := controllerutil.CreateOrUpdate(ctx, c, cm, func() error {
						cm.Labels = map[string]string{"fleet": value(&s)}
						return controllerutil.SetControllerReference(&s, cm, c.Scheme())
					})
					if handle && apierrors.IsInvalid(err) {
						return reconcile.Result{}, nil
					}
					return reconcile.Result{}, err
				}))
		},
	}
}

// TestCheckOperatorTakesARefusedInputAsTheUsers: the apiserver refuses
// (422) a label value that the operator copied verbatim from the Ship:
// the user's bad input, noted on the step, not the operator's failure.
func TestCheckOperatorTakesARefusedInputAsTheUsers(t *testing.T) {
	op := labelOperator(func(s *fleetv1.Ship) string { return s.Spec.Fleet })
	defer properties.SetRapidFlags(t, map[string]string{"rapid.checks": "30"})()
	properties.CheckOperator(t, op)
	// The same run, ended by a Converged that fails once a Ship exists,
	// prints its steps: one is the refusal.
	op.Converged = func(ctx context.Context, c client.Reader) error {
		var ships fleetv1.ShipList
		if err := c.List(ctx, &ships); err != nil || len(ships.Items) == 0 {
			return err
		}
		return errShipExists
	}
	defer properties.SetRapidFlags(t, map[string]string{"rapid.shrinktime": "1ns", "rapid.nofailfile": "true"})()
	rep := properties.NewReport(t.Name())
	properties.CheckOperatorTB(rep, t, op)
	if !rep.Failed() || !strings.Contains(rep.Text(), "input refused: ") || !strings.Contains(rep.Text(), "not converged: a ship exists") {
		t.Fatalf("no step notes the refused input:\n%s", rep.Text())
	}
}

var errShipExists = &shipExists{}

type shipExists struct{}

func (*shipExists) Error() string { return "a ship exists" }

// TestCheckOperatorNotesAHandledRefusalOfTheUsersInput: a refusal the
// reconcile handles is noted as the user's input too, so the end state
// is not held to a run of the final inputs alone; a handled refusal of
// the operator's own value is not.
func TestCheckOperatorNotesAHandledRefusalOfTheUsersInput(t *testing.T) {
	noted := func(value func(*fleetv1.Ship) string) bool {
		op := labelOperatorHandling(value, true)
		op.Converged = func(ctx context.Context, c client.Reader) error {
			var ships fleetv1.ShipList
			if err := c.List(ctx, &ships); err != nil || len(ships.Items) == 0 {
				return err
			}
			return errShipExists
		}
		defer properties.SetRapidFlags(t, map[string]string{"rapid.checks": "30", "rapid.shrinktime": "1ns", "rapid.nofailfile": "true"})()
		rep := properties.NewReport(t.Name())
		properties.CheckOperatorTB(rep, t, op)
		if !rep.Failed() || !strings.Contains(rep.Text(), "not converged: a ship exists") {
			t.Fatalf("no Ship was made:\n%s", rep.Text())
		}
		return strings.Contains(rep.Text(), "input refused: ")
	}
	if !noted(func(s *fleetv1.Ship) string { return s.Spec.Fleet }) {
		t.Fatal("a handled refusal of the user's value is not noted")
	}
	if noted(func(s *fleetv1.Ship) string { return s.Spec.Fleet + "-x" }) {
		t.Fatal("a handled refusal of the operator's own value is noted as the user's")
	}
}

// TestCheckOperatorCatchesARefusalOfItsOwnValue: a 422 on a value the
// operator made up (the Ship's fleet with a suffix) is the operator's
// failure.
func TestCheckOperatorCatchesARefusalOfItsOwnValue(t *testing.T) {
	defer properties.SetRapidFlags(t, map[string]string{"rapid.checks": "50", "rapid.shrinktime": "1ns", "rapid.nofailfile": "true"})()
	rep := properties.NewReport(t.Name())
	properties.CheckOperatorTB(rep, t, labelOperator(func(s *fleetv1.Ship) string { return s.Spec.Fleet + "-x" }))
	if !rep.Failed() || !strings.Contains(rep.Text(), "returned an error") || !strings.Contains(rep.Text(), "is invalid") {
		t.Fatalf("a refusal of the operator's own value passed:\n%s", rep.Text())
	}
}
