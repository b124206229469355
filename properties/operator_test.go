package properties_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/converge-dev/converge/properties"
	fleetv1 "github.com/converge-dev/converge/properties/testdata/fleet/api/v1"
	"github.com/converge-dev/converge/properties/testdata/fleet/controller"
	"github.com/converge-dev/converge/traces"
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

// TestCheckOperatorIsDeterministic: the same seed gives the same steps,
// byte for byte after masking the volatile fields, faults and all.
func TestCheckOperatorIsDeterministic(t *testing.T) {
	a := sameSteps(t, properties.Operator{
		CRDs:   "testdata/fleet/config/crd/bases",
		Scheme: fleetScheme(),
		Setup:  controller.Setup,
		Kinds:  []string{"fleets"},
	})
	named := false // the operator's writes name the fields they changed, custom resources' too
	for _, e := range a {
		for _, w := range e.Writes {
			named = named || (e.Actor == "operator" && w.Resource == "fleets" && len(w.Fields) > 0)
		}
	}
	if !named {
		t.Fatalf("no write of the operator to a Fleet names a field: %+v", a)
	}
}

// sameSteps runs op twice with one seed and once with another, and fails
// unless the first two give the same steps and the third does not. Each
// check is made to fail at its end (a Converged that always fails), so
// that it saves its trace; shrinking is off, so the trace is the run's.
// It returns the steps.
func sameSteps(t *testing.T, op properties.Operator) []traces.TraceEvent {
	t.Helper()
	op.Converged = func(context.Context, client.Reader) error { return errors.New("the end") }
	run := func(path, seed string) []traces.TraceEvent {
		t.Setenv(properties.FailureTraceEnv, path)
		defer properties.SetRapidFlags(t, map[string]string{"rapid.checks": "1", "rapid.seed": seed, "rapid.steps": "40",
			"rapid.shrinktime": "1ns", "rapid.nofailfile": "true"})()
		rep := properties.NewReport(t.Name())
		properties.CheckOperatorTB(rep, t, op)
		if !rep.Failed() || !strings.Contains(rep.Text(), "not converged: the end") {
			t.Fatalf("the check did not end as arranged:\n%s", rep.Text())
		}
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		evs, err := traces.ReadAll(f)
		if err != nil {
			t.Fatal(err)
		}
		for i := range evs {
			evs[i] = traces.Mask(evs[i])
		}
		return evs
	}
	dir := t.TempDir()
	a, b := run(filepath.Join(dir, "a.jsonl"), "7"), run(filepath.Join(dir, "b.jsonl"), "7")
	if c := run(filepath.Join(dir, "c.jsonl"), "8"); reflect.DeepEqual(a, c) {
		t.Fatal("another seed gave the same steps: the comparison below could not fail")
	}
	if len(a) < 20 {
		t.Fatalf("only %d steps: the run is too short to tell", len(a))
	}
	if !reflect.DeepEqual(a, b) {
		for i := range min(len(a), len(b)) {
			if !reflect.DeepEqual(a[i], b[i]) {
				t.Fatalf("the runs part at step %d:\n%+v\n%+v", i+1, a[i], b[i])
			}
		}
		t.Fatalf("one run has %d steps, the other %d", len(a), len(b))
	}
	return a
}

// fleetDefaulter and fleetRules are admission webhooks of the kinds
// kubebuilder scaffolds: a Fleet gets a label, and has at most 2 Ships.
type fleetDefaulter struct{}

func (fleetDefaulter) Default(_ context.Context, f *fleetv1.Fleet) error {
	if f.Labels == nil {
		f.Labels = map[string]string{}
	}
	f.Labels["fleet.example.com/defaulted"] = "yes"
	return nil
}

type fleetRules struct{}

func (fleetRules) ValidateCreate(_ context.Context, f *fleetv1.Fleet) (admission.Warnings, error) {
	return fleetRules{}.check(f)
}

func (fleetRules) ValidateUpdate(_ context.Context, _, f *fleetv1.Fleet) (admission.Warnings, error) {
	return fleetRules{}.check(f)
}

func (fleetRules) ValidateDelete(context.Context, *fleetv1.Fleet) (admission.Warnings, error) {
	return nil, nil
}

func (fleetRules) check(f *fleetv1.Fleet) (admission.Warnings, error) {
	if f.Spec.Ships > 2 {
		return nil, fmt.Errorf("a fleet has at most 2 ships, not %d", f.Spec.Ships)
	}
	return nil, nil
}

// TestCheckOperatorRunsTheOperatorsWebhooks: a Setup that also registers
// admission webhooks, as cmd/main.go does, is checked as it is, and its
// webhooks admit every write as in a cluster: no stored Fleet lacks the
// defaulter's label or has more Ships than the validator allows, though
// the schema allows 4 and the generator draws them.
func TestCheckOperatorRunsTheOperatorsWebhooks(t *testing.T) {
	defer properties.SetRapidFlags(t, map[string]string{"rapid.checks": "20"})()
	properties.CheckOperator(t, properties.Operator{
		CRDs:   "testdata/fleet/config/crd/bases",
		Scheme: fleetScheme(),
		Setup: func(mgr ctrl.Manager) error {
			if err := builder.WebhookManagedBy(mgr, &fleetv1.Fleet{}).WithDefaulter(fleetDefaulter{}).WithValidator(fleetRules{}).Complete(); err != nil {
				return err
			}
			return controller.Setup(mgr)
		},
		Kinds: []string{"fleets"},
		Invariant: func(ctx context.Context, c client.Reader) error {
			var fleets fleetv1.FleetList
			if err := c.List(ctx, &fleets); err != nil {
				return err
			}
			for _, f := range fleets.Items {
				if f.Labels["fleet.example.com/defaulted"] != "yes" || f.Spec.Ships > 2 {
					return fmt.Errorf("fleet %s was not admitted: labels %v, %d ships", f.Name, f.Labels, f.Spec.Ships)
				}
			}
			return nil
		},
	})
}
