package properties_test

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/converge-dev/converge/impl/operator"
	"github.com/converge-dev/converge/properties"
	fleetv1 "github.com/converge-dev/converge/properties/testdata/fleet/api/v1"
)

// The destructive-history oracle (oracle_destructive.go) by written
// scripts: a delete by name from a view that did not hold the child's
// owner is caught although the end state converges; the deletes a
// correct run makes (a user's delete and re-create, the garbage
// collector's) pass.

// sweepByName has the bug: a Fleet its cache does not show is taken for
// gone, and its ConfigMap is deleted by name, whoever owns it now.
type sweepByName struct{ client.Client }

func (r *sweepByName) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	var f fleetv1.Fleet
	if err := r.Get(ctx, req.NamespacedName, &f); apierrors.IsNotFound(err) {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: req.Name + "-config", Namespace: req.Namespace}}
		return reconcile.Result{}, client.IgnoreNotFound(r.Delete(ctx, cm))
	} else if err != nil {
		return reconcile.Result{}, err
	}
	return ensureConfig(ctx, r, &f)
}

// byOwner is correct: its finalizer deletes the ConfigMap this Fleet (by
// uid) controls, with that uid as a precondition. With byName it has
// examples/foreign/broker's BugDeleteByName: it deletes the ConfigMap of
// that name, whoever controls it.
type byOwner struct {
	client.Client
	byName bool
}

func (r *byOwner) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	var f fleetv1.Fleet
	if err := r.Get(ctx, req.NamespacedName, &f); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	if !f.DeletionTimestamp.IsZero() && r.byName {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: f.Name + "-config", Namespace: f.Namespace}}
		if err := r.Delete(ctx, cm); client.IgnoreNotFound(err) != nil {
			return reconcile.Result{}, err
		}
	}
	if !f.DeletionTimestamp.IsZero() {
		var cm corev1.ConfigMap
		err := r.Get(ctx, client.ObjectKey{Namespace: f.Namespace, Name: f.Name + "-config"}, &cm)
		if ref := metav1.GetControllerOf(&cm); err == nil && ref != nil && ref.UID == f.UID {
			uid := cm.UID
			if err := r.Delete(ctx, &cm, client.Preconditions{UID: &uid}); client.IgnoreNotFound(err) != nil {
				return requeueOnRace(err)
			}
		}
		if controllerutil.RemoveFinalizer(&f, cleanupFinalizer) {
			return requeueOnRace(client.IgnoreNotFound(r.Update(ctx, &f)))
		}
		return reconcile.Result{}, nil
	}
	if controllerutil.AddFinalizer(&f, cleanupFinalizer) {
		if err := r.Update(ctx, &f); err != nil {
			return requeueOnRace(err)
		}
	}
	return ensureConfig(ctx, r, &f)
}

func fleetConfigOperator(r func(client.Client) reconcile.Reconciler) properties.Operator {
	return properties.Operator{CRDs: "testdata/fleet/config/crd/bases", Scheme: fleetScheme(), Kinds: []string{"fleets"},
		Setup: func(mgr ctrl.Manager) error {
			return ctrl.NewControllerManagedBy(mgr).For(&fleetv1.Fleet{}).Owns(&corev1.ConfigMap{}).Complete(r(mgr.GetClient()))
		}}
}

// TestDestructiveHistoryCatchesADeleteByNameFromAStaleView: restarted
// against an apiserver lagging to before Fleet a existed, the operator
// hears of a's ConfigMap first, finds no Fleet a in its cache and deletes
// the ConfigMap by name, although a is alive and owns it. It makes the
// ConfigMap again once it hears of a, so the end state converges; no
// previous incarnation was in view (the incarnation oracle's case) and
// the Fleets' informer was behind (the churn oracle's exemption). The
// reference run never deletes it.
func TestDestructiveHistoryCatchesADeleteByNameFromAStaleView(t *testing.T) {
	op := fleetConfigOperator(func(c client.Client) reconcile.Reconciler { return &sweepByName{Client: c} })
	msg := properties.RunOperatorScript(t, op, sweptFromAStaleView)
	first, _, _ := strings.Cut(msg, "\nsteps (")
	t.Logf("caught: %s", first)
	for _, want := range []string{"destructive history: at step ", "deleted configmaps default/a-config", "a child of Fleet default/a of uid ",
		"while its view held no Fleet of that name", "deletes it 0 times, this run at least 1", "it was made again as uid "} {
		if !strings.Contains(first, want) {
			t.Fatalf("want the destructive-history oracle's failure with %q, got:\n%s", want, msg)
		}
	}
}

// sweptFromAStaleView is the script: Fleet a, settled, then the operator
// restarted before a existed hears of a's ConfigMap first.
func sweptFromAStaleView(s *properties.OperatorScript) {
	s.Set("fleets", "a", map[string]any{"ships": 1})
	s.Settle()
	s.RestartInThePast()
	s.Deliver("configmaps")
	s.Reconcile("a", operator.NoFaults)
}

// TestDestructiveHistoryCanBeSkipped: Operator.Skip["destructive-history"]
// turns it off, and nothing else catches the sweep.
func TestDestructiveHistoryCanBeSkipped(t *testing.T) {
	op := fleetConfigOperator(func(c client.Client) reconcile.Reconciler { return &sweepByName{Client: c} })
	op.Skip = map[string]string{"destructive-history": "the sweep is known"}
	if msg := properties.RunOperatorScript(t, op, sweptFromAStaleView); msg != "" {
		t.Fatalf("skipped, the oracle still failed:\n%s", msg)
	}
}

// TestDestructiveHistoryPassesAUsersDeleteAndRecreate: a user deletes
// Fleet a and makes it again; the operator's finalizer deletes the old
// one's ConfigMap and the operator makes the new one's. Its delete is of
// a child whose owner was being deleted, so no failure.
func TestDestructiveHistoryPassesAUsersDeleteAndRecreate(t *testing.T) {
	op := fleetConfigOperator(func(c client.Client) reconcile.Reconciler { return &byOwner{Client: c} })
	msg := properties.RunOperatorScript(t, op, func(s *properties.OperatorScript) {
		s.Set("fleets", "a", map[string]any{"ships": 1})
		s.Settle()
		s.Delete("fleets", "a")
		s.Settle()
		s.Set("fleets", "a", map[string]any{"ships": 2})
	})
	if msg != "" {
		t.Fatalf("a user's delete and re-create failed:\n%s", msg)
	}
}

// TestDestructiveHistoryPassesDeletesOfAGoneOwnersChild: the sweeping
// operator deletes by name the ConfigMap of a Fleet the user deleted:
// the owner is gone, so the delete does not count.
func TestDestructiveHistoryPassesDeletesOfAGoneOwnersChild(t *testing.T) {
	op := fleetConfigOperator(func(c client.Client) reconcile.Reconciler { return &sweepByName{Client: c} })
	msg := properties.RunOperatorScript(t, op, func(s *properties.OperatorScript) {
		s.Set("fleets", "a", map[string]any{"ships": 1})
		s.Settle()
		s.Delete("fleets", "a")
		s.Deliver("fleets")
		s.Reconcile("a", operator.NoFaults)
	})
	if msg != "" {
		t.Fatalf("the operator's delete of a gone owner's child failed:\n%s", msg)
	}
}

// configOnly makes a Fleet's ConfigMap and deletes nothing: the garbage
// collector removes it once the Fleet is gone.
type configOnly struct{ client.Client }

func (r *configOnly) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	var f fleetv1.Fleet
	if err := r.Get(ctx, req.NamespacedName, &f); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	return ensureConfig(ctx, r, &f)
}

// TestDestructiveHistoryPassesTheCollectorsDeletes: the garbage
// collector deletes the ConfigMaps of deleted Fleets, one of them while
// the operator, restarted in the past, still sees its Fleet: not the
// operator's delete.
func TestDestructiveHistoryPassesTheCollectorsDeletes(t *testing.T) {
	op := fleetConfigOperator(func(c client.Client) reconcile.Reconciler { return &configOnly{Client: c} })
	msg := properties.RunOperatorScript(t, op, func(s *properties.OperatorScript) {
		s.Set("fleets", "a", map[string]any{"ships": 1})
		s.Set("fleets", "b", map[string]any{"ships": 1})
		s.Settle()
		s.Delete("fleets", "a")
		s.Settle()
		s.RestartInThePast()
		s.Delete("fleets", "b")
	})
	if msg != "" {
		t.Fatalf("the garbage collector's deletes failed:\n%s", msg)
	}
}

// TestTimeTravelShowsThePreviousIncarnationBeingDeleted: after Fleet a is
// deleted and made again, the operator restarts against an apiserver
// lagging to the moment a's first incarnation began to be deleted. Its
// finalizer, deleting by name, deletes the new incarnation's ConfigMap:
// the incarnation oracle names it (it runs after every step, before the
// destructive history at the end).
func TestTimeTravelShowsThePreviousIncarnationBeingDeleted(t *testing.T) {
	op := fleetConfigOperator(func(c client.Client) reconcile.Reconciler { return &byOwner{Client: c, byName: true} })
	msg := properties.RunOperatorScript(t, op, func(s *properties.OperatorScript) {
		s.Set("fleets", "a", map[string]any{"ships": 1})
		s.Settle()
		s.Delete("fleets", "a")
		s.Settle()
		s.Set("fleets", "a", map[string]any{"ships": 2})
		s.Settle()
		s.RestartInThePast()
		s.Reconcile("a", operator.NoFaults)
	})
	first, _, _ := strings.Cut(msg, "\nsteps (")
	t.Logf("caught: %s", first)
	if !strings.Contains(first, "acted on a previous incarnation's children") || !strings.Contains(first, "being deleted") {
		t.Fatalf("want the incarnation oracle naming the previous incarnation being deleted, got:\n%s", msg)
	}
}
