package properties_test

import (
	"context"
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/record"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/converge-dev/converge/properties"
	fleetv1 "github.com/converge-dev/converge/properties/testdata/fleet/api/v1"
)

// TestCheckOperatorOnBuilderOptions: an operator wired with more of the
// builder than For and Owns is checked as any other: a predicate on For
// (GenerationChangedPredicate), Watches of a kind it does not own mapped
// to its requests (EnqueueRequestsFromMapFunc), a server-side apply of an
// unstructured child, an event recorder, and a status merge patch. A
// correct operator passes; the garbage collector removes a child applied
// after its owner went.
func TestCheckOperatorOnBuilderOptions(t *testing.T) {
	properties.CheckOperator(t, properties.Operator{
		CRDs:   "testdata/fleet/config/crd/bases",
		Scheme: fleetScheme(),
		Kinds:  []string{"fleets"},
		Setup: func(mgr ctrl.Manager) error {
			r := &configReconciler{Client: mgr.GetClient(), rec: mgr.GetEventRecorderFor("fleet-config")}
			return ctrl.NewControllerManagedBy(mgr).
				For(&fleetv1.Fleet{}, builder.WithPredicates(predicate.GenerationChangedPredicate{})).
				Watches(&corev1.ConfigMap{}, handler.EnqueueRequestsFromMapFunc(func(ctx context.Context, o client.Object) []reconcile.Request {
					if f := o.GetLabels()["fleet"]; f != "" {
						return []reconcile.Request{{NamespacedName: types.NamespacedName{Namespace: o.GetNamespace(), Name: f}}}
					}
					return nil
				})).
				Complete(r)
		},
	})
}

// configReconciler applies "<fleet>-conf", a ConfigMap of the Fleet's
// spec, records an event, and reports the generation it saw.
type configReconciler struct {
	client.Client
	rec record.EventRecorder
}

func (r *configReconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	var f fleetv1.Fleet
	if err := r.Get(ctx, req.NamespacedName, &f); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	if !f.DeletionTimestamp.IsZero() {
		return reconcile.Result{}, nil
	}
	cm := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": f.Name + "-conf", "namespace": f.Namespace, "labels": map[string]any{"fleet": f.Name},
			"ownerReferences": []any{map[string]any{"apiVersion": "fleet.example.com/v1", "kind": "Fleet", "name": f.Name, "uid": string(f.UID), "controller": true, "blockOwnerDeletion": true}}},
		"data": map[string]any{"ships": fmt.Sprint(f.Spec.Ships), "speed": fmt.Sprint(f.Spec.Speed)},
	}}
	if err := r.Patch(ctx, cm, client.Apply, client.FieldOwner("fleet-config"), client.ForceOwnership); err != nil {
		if apierrors.IsConflict(err) || apierrors.IsNotFound(err) {
			return reconcile.Result{Requeue: true}, nil
		}
		return reconcile.Result{}, err
	}
	r.rec.Eventf(&f, corev1.EventTypeNormal, "Applied", "configmap %s", cm.GetName())
	if f.Status.ObservedGeneration != f.Generation {
		base := f.DeepCopy()
		f.Status.ObservedGeneration = f.Generation
		if err := r.Status().Patch(ctx, &f, client.MergeFrom(base)); err != nil {
			if apierrors.IsConflict(err) || apierrors.IsNotFound(err) {
				return reconcile.Result{Requeue: true}, nil
			}
			return reconcile.Result{}, err
		}
	}
	return reconcile.Result{}, nil
}
