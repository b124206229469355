package properties_test

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/converge-dev/converge/properties"
	fleetv1 "github.com/converge-dev/converge/properties/testdata/fleet/api/v1"
)

// statusRetry writes the Fleet's ConfigMap from the Fleet as its cache
// holds it, then its status with observedGeneration. On a conflict of the
// status write, the buggy one re-reads the live Fleet and writes the
// status again with the re-read object's generation, newer than the spec
// its ConfigMap was made from; the correct one requeues.
type statusRetry struct {
	client.Client
	live client.Reader
	bug  bool
}

func (r *statusRetry) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	var f fleetv1.Fleet
	if err := r.Get(ctx, req.NamespacedName, &f); err != nil || !f.DeletionTimestamp.IsZero() {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	if res, err := ensureConfig(ctx, r, &f); err != nil || !res.IsZero() {
		return res, err
	}
	f.Status.ObservedGeneration = f.Generation
	err := r.Status().Update(ctx, &f)
	if !apierrors.IsConflict(err) || !r.bug {
		return requeueOnRace(err)
	}
	var fresh fleetv1.Fleet
	if err := r.live.Get(ctx, req.NamespacedName, &fresh); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	fresh.Status.ObservedGeneration = fresh.Generation // the bug: a spec it never acted on
	return requeueOnRace(r.Status().Update(ctx, &fresh))
}

func statusRetrySetup(bug bool) func(ctrl.Manager) error {
	return func(mgr ctrl.Manager) error {
		r := &statusRetry{Client: mgr.GetClient(), live: mgr.GetAPIReader(), bug: bug}
		return ctrl.NewControllerManagedBy(mgr).For(&fleetv1.Fleet{}).Owns(&corev1.ConfigMap{}).Complete(r)
	}
}

// TestCheckOperatorCatchesAnObservedGenerationFromAStaleRead: the buggy
// retry is caught by the observed-generation oracle (the end state is
// clean: the next reconcile makes the ConfigMap right).
func TestCheckOperatorCatchesAnObservedGenerationFromAStaleRead(t *testing.T) {
	text := catches(t, 300, statusRetrySetup(true))
	if !strings.Contains(text, "observed generation: ") || !strings.Contains(text, "claims a spec the reconcile never acted on") {
		t.Fatalf("the failure is not the observed-generation oracle's:\n%s", text)
	}
}

// TestCheckOperatorPassesAStatusRetryThatRequeues: its twin, which
// requeues on the conflict, passes; and Operator.Skip turns the oracle
// off by name.
func TestCheckOperatorPassesAStatusRetryThatRequeues(t *testing.T) {
	op := properties.Operator{CRDs: "testdata/fleet/config/crd/bases", Scheme: fleetScheme(), Kinds: []string{"fleets"}, Names: []string{"a"},
		Setup: statusRetrySetup(false)}
	defer properties.SetRapidFlags(t, map[string]string{"rapid.checks": "100", "rapid.seed": "1"})()
	properties.CheckOperator(t, op)
	op.Setup = statusRetrySetup(true)
	op.Skip = map[string]string{"observed-generation": "the test turns it off"}
	properties.CheckOperator(t, op)
}
