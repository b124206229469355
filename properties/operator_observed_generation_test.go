package properties_test

import (
	"context"
	"strconv"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/converge-dev/converge/impl/operator"
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
	// then, if set, is what the buggy one writes after its re-read,
	// before the status.
	then func(ctx context.Context, c client.Client, fresh *fleetv1.Fleet) error
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
	if r.then != nil {
		if err := r.then(ctx, r.Client, &fresh); err != nil {
			return requeueOnRace(err)
		}
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

// retryScript makes the status write of a reconcile conflict: the
// Fleet's ConfigMap changes (another writer's label) and the reconcile
// it brings runs before the operator hears of the Fleet's new spec.
func retryScript(s *properties.OperatorScript) {
	s.Set("fleets", "a", map[string]any{"ships": 1, "speed": 1})
	s.Settle()
	s.Other("v1", "ConfigMap", "a-config", "label")
	s.Set("fleets", "a", map[string]any{"ships": 2, "speed": 1})
	s.Deliver("configmaps")
	s.Reconcile("a", operator.NoFaults)
}

// TestObservedGenerationCountsOnlyTheWorkRedone: after the re-read, a
// write counts as the work redone on the newer spec only if it is of a
// child (an object the Fleet owns). An Event about the retry is no
// work: the claim after it is caught. The Fleet's ConfigMap made again
// from the re-read spec is: the claim after it passes.
func TestObservedGenerationCountsOnlyTheWorkRedone(t *testing.T) {
	op := func(then func(ctx context.Context, c client.Client, fresh *fleetv1.Fleet) error) properties.Operator {
		return properties.Operator{CRDs: "testdata/fleet/config/crd/bases", Scheme: fleetScheme(), Kinds: []string{"fleets"}, Names: []string{"a"},
			Setup: func(mgr ctrl.Manager) error {
				r := &statusRetry{Client: mgr.GetClient(), live: mgr.GetAPIReader(), bug: true, then: then}
				return ctrl.NewControllerManagedBy(mgr).For(&fleetv1.Fleet{}).Owns(&corev1.ConfigMap{}).Complete(r)
			}}
	}
	// A note of the retry in a ConfigMap the Fleet does not own (an
	// operator's own bookkeeping): no work on the newer spec.
	note := func(ctx context.Context, c client.Client, fresh *fleetv1.Fleet) error {
		return c.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: fresh.Namespace, Name: fresh.Name + "-retried"},
			Data: map[string]string{"generation": strconv.FormatInt(fresh.Generation, 10)}})
	}
	msg := properties.RunOperatorScript(t, op(note), retryScript)
	t.Logf("caught: %s", strings.SplitN(msg, "\n", 2)[0])
	if !strings.Contains(msg, "observed generation: ") || !strings.Contains(msg, "claims a spec the reconcile never acted on") {
		t.Fatalf("a claim after a note, no work on the newer spec, passed:\n%s", msg)
	}
	redo := func(ctx context.Context, c client.Client, fresh *fleetv1.Fleet) error {
		_, err := ensureConfig(ctx, c, fresh)
		return err
	}
	if msg := properties.RunOperatorScript(t, op(redo), retryScript); strings.Contains(msg, "observed generation: ") {
		t.Fatalf("a claim after the work redone on the newer spec failed:\n%s", msg)
	}
}
