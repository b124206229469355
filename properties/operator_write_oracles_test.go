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
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/converge-dev/converge/properties"
	fleetv1 "github.com/converge-dev/converge/properties/testdata/fleet/api/v1"
)

const cleanupFinalizer = "fleet.example.com/cleanup"

// catches runs CheckOperator on a fixed seed and reports its failure text.
func catches(t *testing.T, checks int, setup func(ctrl.Manager) error) string {
	t.Helper()
	defer properties.SetRapidFlags(t, map[string]string{"rapid.checks": strconv.Itoa(checks), "rapid.seed": "1", "rapid.nofailfile": "true"})()
	rep := properties.NewReport(t.Name())
	properties.CheckOperatorTB(rep, t, properties.Operator{
		CRDs: "testdata/fleet/config/crd/bases", Scheme: fleetScheme(), Kinds: []string{"fleets"}, Names: []string{"a"}, Setup: setup,
	})
	if !rep.Failed() {
		t.Fatalf("the bug passed %d checks", checks)
	}
	text := rep.Text()
	if i := strings.Index(text, "[rapid] failed"); i >= 0 {
		line, _, _ := strings.Cut(text[i:], "\n")
		t.Logf("caught: %s", line)
	}
	return text
}

// TestCheckOperatorCatchesACleanupOfTheWrongIncarnation: an operator
// that runs its finalizer's cleanup from its cache, deleting the Fleet's
// ConfigMap by name, while it makes the ConfigMap from a live read,
// deletes the ConfigMap of a new Fleet of the same name when its cache
// still holds the previous one, being deleted. The garbage collector
// finds nothing wrong, the operator makes the ConfigMap again, and the
// end state is clean; the incarnation oracle names the delete.
func TestCheckOperatorCatchesACleanupOfTheWrongIncarnation(t *testing.T) {
	text := catches(t, 300, func(mgr ctrl.Manager) error {
		r := &cleanupByName{Client: mgr.GetClient(), live: mgr.GetAPIReader()}
		return ctrl.NewControllerManagedBy(mgr).For(&fleetv1.Fleet{}).Owns(&corev1.ConfigMap{}).Complete(r)
	})
	if !strings.Contains(text, "acted on a previous incarnation's children") {
		t.Fatalf("the failure is not the incarnation oracle's:\n%s", text)
	}
}

// cleanupByName has the bug: its cleanup trusts its cache's Fleet.
type cleanupByName struct {
	client.Client
	live client.Reader
}

func (r *cleanupByName) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	var cached fleetv1.Fleet
	if err := r.Get(ctx, req.NamespacedName, &cached); err == nil && !cached.DeletionTimestamp.IsZero() {
		return r.cleanup(ctx, &cached)
	}
	var f fleetv1.Fleet
	if err := r.live.Get(ctx, req.NamespacedName, &f); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	if !f.DeletionTimestamp.IsZero() {
		return r.cleanup(ctx, &f)
	}
	if controllerutil.AddFinalizer(&f, cleanupFinalizer) {
		if err := r.Update(ctx, &f); err != nil {
			return requeueOnRace(err)
		}
	}
	return ensureConfig(ctx, r, &f)
}

func (r *cleanupByName) cleanup(ctx context.Context, f *fleetv1.Fleet) (reconcile.Result, error) {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: f.Name + "-config", Namespace: f.Namespace}}
	if err := r.Delete(ctx, cm); err != nil && !apierrors.IsNotFound(err) {
		return reconcile.Result{}, err
	}
	if controllerutil.RemoveFinalizer(f, cleanupFinalizer) {
		if err := r.Update(ctx, f); err != nil {
			return reconcile.Result{}, client.IgnoreNotFound(err)
		}
	}
	return reconcile.Result{}, nil
}

func ensureConfig(ctx context.Context, c client.Client, f *fleetv1.Fleet) (reconcile.Result, error) {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: f.Name + "-config", Namespace: f.Namespace}}
	if _, err := controllerutil.CreateOrUpdate(ctx, c, cm, func() error {
		cm.Data = map[string]string{"ships": strconv.Itoa(int(f.Spec.Ships))}
		return controllerutil.SetControllerReference(f, cm, c.Scheme())
	}); err != nil {
		return requeueOnRace(err)
	}
	return reconcile.Result{}, nil
}

// TestCheckOperatorCatchesCleanupAfterTheFinalizer: an operator that
// removes its finalizer first and then deletes the Fleet's ConfigMap
// leaves the ConfigMap behind if it crashes in between; the garbage
// collector removes it later, so the end state is clean, and only the
// cleanup order oracle catches it.
func TestCheckOperatorCatchesCleanupAfterTheFinalizer(t *testing.T) {
	text := catches(t, 100, func(mgr ctrl.Manager) error {
		r := &finalizerFirst{Client: mgr.GetClient()}
		return ctrl.NewControllerManagedBy(mgr).For(&fleetv1.Fleet{}).Owns(&corev1.ConfigMap{}).Complete(r)
	})
	if !strings.Contains(text, "cleanup after the finalizer: it removed the finalizer "+cleanupFinalizer) {
		t.Fatalf("the failure is not the cleanup order oracle's:\n%s", text)
	}
}

// finalizerFirst has the bug: it lets its Fleet go before its cleanup.
type finalizerFirst struct{ client.Client }

func (r *finalizerFirst) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	var f fleetv1.Fleet
	if err := r.Get(ctx, req.NamespacedName, &f); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	if !f.DeletionTimestamp.IsZero() {
		if controllerutil.RemoveFinalizer(&f, cleanupFinalizer) {
			if err := r.Update(ctx, &f); err != nil {
				return requeueOnRace(err)
			}
		}
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: f.Name + "-config", Namespace: f.Namespace}}
		return reconcile.Result{}, client.IgnoreNotFound(r.Delete(ctx, cm))
	}
	if controllerutil.AddFinalizer(&f, cleanupFinalizer) {
		if err := r.Update(ctx, &f); err != nil {
			return requeueOnRace(err)
		}
	}
	return ensureConfig(ctx, r, &f)
}
