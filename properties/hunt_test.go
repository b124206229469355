package properties_test

import (
	"context"
	"strings"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/converge-dev/converge/properties"
	fleetv1 "github.com/converge-dev/converge/properties/testdata/fleet/api/v1"
)

// returnsItsNotFound is an operator with a seeded bug: it returns its
// Fleet's NotFound once the Fleet is gone.
var returnsItsNotFound = fleetOperator(func(ctx context.Context, c client.Client, req reconcile.Request) error {
	var f fleetv1.Fleet
	return c.Get(ctx, req.NamespacedName, &f)
})

// TestHuntCountsTheChecksToTheFirstFailure: Hunt says how many checks and
// how long the first failure took, and how small it shrank; on an
// operator that passes, that every check ran.
func TestHuntCountsTheChecksToTheFirstFailure(t *testing.T) {
	defer properties.SetRapidFlags(t, map[string]string{"rapid.checks": "50", "rapid.seed": "3", "rapid.shrinktime": "2s", "rapid.nofailfile": "true"})()
	h := properties.Hunt(t, returnsItsNotFound)
	if !h.Failed || !strings.Contains(h.Report.Text(), "not found of its own object") || strings.Contains(h.Report.Text(), "nondeterministic") {
		t.Fatalf("the seeded bug was not found in %d checks:\n%s", h.Checks, h.Report.Text())
	}
	if h.Checks < 1 || h.Checks > 50 || h.Find <= 0 || h.Find > h.Total || h.Drawn < 1 {
		t.Fatalf("checks %d, find %v, total %v, drawn %d", h.Checks, h.Find, h.Total, h.Drawn)
	}
	again := properties.Hunt(t, returnsItsNotFound)
	if again.Checks != h.Checks {
		t.Fatalf("one seed found the bug after %d checks, then after %d", h.Checks, again.Checks)
	}
	defer properties.SetRapidFlags(t, map[string]string{"rapid.checks": "3"})()
	ok := properties.Hunt(t, fleetOperator(func(context.Context, client.Client, reconcile.Request) error { return nil }))
	if ok.Failed || ok.Checks != 3 || ok.Find != 0 {
		t.Fatalf("a passing operator: failed %v after %d checks, find %v:\n%s", ok.Failed, ok.Checks, ok.Find, ok.Report.Text())
	}
}

// Hunt measures a seeded bug: the checks and the time it took to find,
// and the size of the shrunk counterexample.
func ExampleHunt() {
	_ = func(t *testing.T) { // a test function, as it would appear in a _test.go file
		defer properties.SetRapidFlags(t, map[string]string{"rapid.checks": "300", "rapid.seed": "1", "rapid.nofailfile": "true"})()
		h := properties.Hunt(t, returnsItsNotFound)
		if !h.Failed {
			t.Fatalf("the seeded bug passed %d checks", h.Checks)
		}
		t.Logf("caught after %d checks in %v; %d drawn actions after shrinking", h.Checks, h.Find, h.Drawn)
	}
}
