package properties_test

import (
	"context"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	taskv1 "github.com/converge-dev/converge/examples/foreign/tasks/api/v1"
	"github.com/converge-dev/converge/properties"
)

const tasksCRDs = "../examples/foreign/tasks/config/crd/bases"

func tasksScheme() *runtime.Scheme {
	s := runtime.NewScheme()
	_ = clientgoscheme.AddToScheme(s)
	_ = taskv1.AddToScheme(s)
	return s
}

// TestCheckOperatorComparesWithTheHistory: an operator that keeps a
// Deployment for each Task and, while the Task is suspended, leaves it
// alone (a Deployment made before the suspension stays, drift and all) is
// correct: its end state depends on the history of its inputs, which the
// differential's reference replays. Compared with a run of the final
// inputs only, it failed (`- Deployment default/b (only in this run)`).
func TestCheckOperatorComparesWithTheHistory(t *testing.T) {
	properties.CheckOperator(t, properties.Operator{
		CRDs:   tasksCRDs,
		Scheme: tasksScheme(),
		Kinds:  []string{"tasks"},
		Setup: func(mgr ctrl.Manager) error {
			return ctrl.NewControllerManagedBy(mgr).For(&taskv1.Task{}).Owns(&appsv1.Deployment{}).
				Complete(&pausable{Client: mgr.GetClient()})
		},
	})
}

// pausable keeps a Task's Deployment unless the Task is suspended.
type pausable struct{ client.Client }

func (r *pausable) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	var task taskv1.Task
	if err := r.Get(ctx, req.NamespacedName, &task); err != nil || !task.DeletionTimestamp.IsZero() || task.Spec.Suspend {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: task.Name, Namespace: task.Namespace}}
	if _, err := controllerutil.CreateOrUpdate(ctx, r, d, func() error {
		labels := map[string]string{"task": task.Name}
		d.Spec.Replicas = ptr.To[int32](1)
		d.Spec.Selector = &metav1.LabelSelector{MatchLabels: labels}
		d.Spec.Template.Labels = labels
		d.Spec.Template.Spec.Containers = []corev1.Container{{Name: "task", Image: task.Spec.Image}}
		return controllerutil.SetControllerReference(&task, d, r.Scheme())
	}); err != nil {
		return requeueOnRace(err)
	}
	return reconcile.Result{}, nil
}
