package properties_test

import (
	"context"
	"strconv"
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

// TestCheckOperatorLeavesCleanupToTheCollector: an operator with no
// finalizer, which makes a ConfigMap and a Service for each Fleet and
// leaves their deletion to their ownerReferences, is correct, and passes.
// With a stale view it may make them for a Fleet already deleted; the
// garbage collector hears of them and deletes them, as Kubernetes' does,
// so the end state is the reference run's. (Before the collector followed
// ConfigMaps and Services, this check failed on such a leftover.)
func TestCheckOperatorLeavesCleanupToTheCollector(t *testing.T) {
	properties.CheckOperator(t, properties.Operator{
		CRDs:   "testdata/fleet/config/crd/bases",
		Scheme: fleetScheme(),
		Kinds:  []string{"fleets"},
		Setup: func(mgr ctrl.Manager) error {
			r := &childrenWithoutFinalizer{Client: mgr.GetClient()}
			return ctrl.NewControllerManagedBy(mgr).For(&fleetv1.Fleet{}).Owns(&corev1.ConfigMap{}).Owns(&corev1.Service{}).Complete(r)
		},
	})
}

// childrenWithoutFinalizer keeps a Fleet's ConfigMap and Service.
type childrenWithoutFinalizer struct{ client.Client }

func (r *childrenWithoutFinalizer) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	var f fleetv1.Fleet
	if err := r.Get(ctx, req.NamespacedName, &f); err != nil || !f.DeletionTimestamp.IsZero() {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: f.Name + "-config", Namespace: f.Namespace}}
	if _, err := controllerutil.CreateOrUpdate(ctx, r, cm, func() error {
		cm.Data = map[string]string{"ships": strconv.Itoa(int(f.Spec.Ships))}
		return controllerutil.SetControllerReference(&f, cm, r.Scheme())
	}); err != nil {
		return requeueOnRace(err)
	}
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: f.Name, Namespace: f.Namespace}}
	if _, err := controllerutil.CreateOrUpdate(ctx, r, svc, func() error {
		svc.Spec.Selector = map[string]string{"fleet": f.Name}
		if len(svc.Spec.Ports) == 0 {
			svc.Spec.Ports = []corev1.ServicePort{{Port: 80}}
		}
		return controllerutil.SetControllerReference(&f, svc, r.Scheme())
	}); err != nil {
		return requeueOnRace(err)
	}
	return reconcile.Result{}, nil
}

// requeueOnRace: a create or update that lost a race with another writer
// is tried again; any other error is the reconcile's.
func requeueOnRace(err error) (reconcile.Result, error) {
	if apierrors.IsAlreadyExists(err) || apierrors.IsConflict(err) {
		return reconcile.Result{Requeue: true}, nil
	}
	return reconcile.Result{}, err
}
