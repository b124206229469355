package properties_test

import (
	"context"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	webappv1 "github.com/converge-dev/converge/examples/operator/api/v1"
	"github.com/converge-dev/converge/properties"
)

// countsFromSpec keeps a WebApp's Deployment and reports
// status.readyReplicas from the WebApp's spec, or, honest, from the
// Deployment's status. It never says Ready, so only the counts can lie.
// With two, it keeps a second Deployment of the same image beside the
// first, and honest counts the ready pods of both.
type countsFromSpec struct {
	client.Client
	honest, two bool
}

func (r *countsFromSpec) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	var app webappv1.WebApp
	if err := r.Get(ctx, req.NamespacedName, &app); err != nil || !app.DeletionTimestamp.IsZero() {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	names := []string{app.Name}
	if r.two {
		names = append(names, app.Name+"-extra")
	}
	var seen int32
	for _, name := range names {
		dep, err := r.keepDeployment(ctx, &app, name)
		if err != nil {
			return requeueOnRace(err)
		}
		seen += dep.Status.ReadyReplicas
	}
	// The bug: the ready count is the one asked for, not the one seen.
	ready := app.Spec.Replicas
	if r.honest {
		ready = seen
	}
	if app.Status.ReadyReplicas == ready {
		return reconcile.Result{}, nil
	}
	app.Status.ReadyReplicas = ready
	return requeueOnRace(client.IgnoreNotFound(r.Status().Update(ctx, &app)))
}

// countsOperator runs it with the faults on: the world faults, a failing
// image among them, are drawn with the others.
// keepDeployment creates or updates the app's Deployment of that name.
func (r *countsFromSpec) keepDeployment(ctx context.Context, app *webappv1.WebApp, name string) (*appsv1.Deployment, error) {
	dep := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: app.Namespace}}
	_, err := controllerutil.CreateOrUpdate(ctx, r, dep, func() error {
		replicas := app.Spec.Replicas
		dep.Spec.Replicas = &replicas
		if dep.Spec.Selector == nil {
			dep.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": name}}
		}
		dep.Spec.Template.Labels = map[string]string{"app": name}
		if len(dep.Spec.Template.Spec.Containers) != 1 {
			dep.Spec.Template.Spec.Containers = []corev1.Container{{Name: "web"}}
		}
		dep.Spec.Template.Spec.Containers[0].Image = app.Spec.Image
		return controllerutil.SetControllerReference(app, dep, r.Scheme())
	})
	return dep, err
}

func countsOperator(honest, two bool) properties.Operator {
	op := webAppOperator(func(mgr ctrl.Manager) error {
		return ctrl.NewControllerManagedBy(mgr).For(&webappv1.WebApp{}).Owns(&appsv1.Deployment{}).
			Complete(&countsFromSpec{Client: mgr.GetClient(), honest: honest, two: two})
	})
	op.NoFaults = false
	return op
}

// TestStatusCountsCatchReadyReplicasFromSpec: an operator that reports
// status.readyReplicas from spec.replicas is caught once an image of its
// Deployment fails to pull (a world fault) and the pods it counts are
// never ready. No other oracle sees it: the operator says nothing is
// Ready.
func TestStatusCountsCatchReadyReplicasFromSpec(t *testing.T) {
	expectCaught(t, countsOperator(false, false), "100", "status counts: ")
}

// TestStatusCountsPassHonestCounts is the oracle's false-alarm guard: the
// same operator with two Deployments, counting the ready pods both
// report, passes the same checks, failing images included.
func TestStatusCountsPassHonestCounts(t *testing.T) {
	defer properties.SetRapidFlags(t, map[string]string{"rapid.checks": "100", "rapid.seed": "1"})()
	properties.CheckOperator(t, countsOperator(true, true))
}

// TestStatusCountsCatchSpecCountOverTwoWorkloads is the teeth test of the
// exemption for several workloads (their sum or any one child's count
// passes): a count copied from the spec is still caught where the pods
// fail, since then neither child nor the sum has it.
func TestStatusCountsCatchSpecCountOverTwoWorkloads(t *testing.T) {
	expectCaught(t, countsOperator(false, true), "100", "status counts: ")
}
