package properties_test

import (
	"context"
	"fmt"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/converge-dev/converge/properties"
	fleetv1 "github.com/converge-dev/converge/properties/testdata/fleet/api/v1"
)

// jobOwnerKey indexes Jobs by the Fleet that controls them, as
// kubebuilder's CronJob tutorial indexes its Jobs (here by UID, so that an
// earlier Fleet's Jobs of the same name are not this one's).
const jobOwnerKey = ".metadata.controller"

// TestCheckOperatorServesAFieldIndex: an operator that registers a field
// index with the manager (mgr.GetFieldIndexer().IndexField) and lists its
// children through it (client.MatchingFields), the way kubebuilder's
// CronJob tutorial does, is checked as any other: the index answers from
// the stepped cache, and a correct operator passes. The operator trusts
// the index: one that matched every Job would have it delete another
// Fleet's, and one that matched none would have it create what exists.
func TestCheckOperatorServesAFieldIndex(t *testing.T) {
	properties.CheckOperator(t, properties.Operator{
		CRDs:   "testdata/fleet/config/crd/bases",
		Scheme: fleetScheme(),
		Kinds:  []string{"fleets"},
		Setup: func(mgr ctrl.Manager) error {
			if err := mgr.GetFieldIndexer().IndexField(context.Background(), &batchv1.Job{}, jobOwnerKey, func(o client.Object) []string {
				if owner := metav1.GetControllerOf(o); owner != nil && owner.Kind == "Fleet" {
					return []string{string(owner.UID)}
				}
				return nil
			}); err != nil {
				return err
			}
			return ctrl.NewControllerManagedBy(mgr).For(&fleetv1.Fleet{}).Owns(&batchv1.Job{}).Complete(&jobsByIndex{Client: mgr.GetClient()})
		},
	})
}

// jobsByIndex keeps one Job per ship of a Fleet, "<fleet>-<i>", and
// deletes the Jobs past spec.ships, which it finds through the index.
type jobsByIndex struct{ client.Client }

func (r *jobsByIndex) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	var f fleetv1.Fleet
	if err := r.Get(ctx, req.NamespacedName, &f); err != nil || !f.DeletionTimestamp.IsZero() {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	var jobs batchv1.JobList
	if err := r.List(ctx, &jobs, client.InNamespace(f.Namespace), client.MatchingFields{jobOwnerKey: string(f.UID)}); err != nil {
		return reconcile.Result{}, err
	}
	want := map[string]bool{}
	for i := range f.Spec.Ships {
		want[fmt.Sprintf("%s-%d", f.Name, i)] = true
	}
	for i := range jobs.Items {
		j := &jobs.Items[i]
		if want[j.Name] {
			delete(want, j.Name)
			continue
		}
		if err := r.Delete(ctx, j, client.PropagationPolicy(metav1.DeletePropagationBackground)); client.IgnoreNotFound(err) != nil {
			return reconcile.Result{}, err
		}
	}
	for name := range want {
		job := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: f.Namespace}}
		job.Spec.Template.Spec.Containers = []corev1.Container{{Name: "ship", Image: "busybox:1.36"}}
		job.Spec.Template.Spec.RestartPolicy = corev1.RestartPolicyNever
		if err := controllerutil.SetControllerReference(&f, job, r.Scheme()); err != nil {
			return reconcile.Result{}, err
		}
		if err := r.Create(ctx, job); err != nil {
			return requeueOnRace(err)
		}
	}
	return reconcile.Result{}, nil
}
