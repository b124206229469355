package properties_test

import (
	"context"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	webappv1 "github.com/converge-dev/converge/examples/operator/api/v1"
	"github.com/converge-dev/converge/impl/operator"
	"github.com/converge-dev/converge/properties"
)

// deploysWebApp keeps a WebApp's Deployment from its cache. On a 409
// Conflict the correct one requeues, to rebuild from a fresh read;
// stampFresh (the bug) reads the fresh resourceVersion live, copies it
// onto its stale copy and sends that again, reverting whatever another
// writer changed in between.
type deploysWebApp struct {
	client.Client
	live       client.Reader
	stampFresh bool
}

func (r *deploysWebApp) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	var app webappv1.WebApp
	if err := r.Get(ctx, req.NamespacedName, &app); err != nil || !app.DeletionTimestamp.IsZero() {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	dep := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: app.Name, Namespace: app.Namespace}}
	_, err := controllerutil.CreateOrUpdate(ctx, r, dep, func() error {
		replicas := app.Spec.Replicas
		dep.Spec.Replicas = &replicas
		if dep.Spec.Selector == nil {
			dep.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": app.Name}}
		}
		if dep.Spec.Template.Labels == nil {
			dep.Spec.Template.Labels = map[string]string{}
		}
		dep.Spec.Template.Labels["app"] = app.Name
		c := container(&dep.Spec.Template.Spec, "web")
		c.Image = app.Spec.Image
		return controllerutil.SetControllerReference(&app, dep, r.Scheme())
	})
	if apierrors.IsConflict(err) && r.stampFresh {
		fresh := &appsv1.Deployment{}
		if err := r.live.Get(ctx, client.ObjectKeyFromObject(dep), fresh); err != nil {
			return reconcile.Result{}, client.IgnoreNotFound(err)
		}
		if fresh.UID != dep.UID {
			return reconcile.Result{Requeue: true}, nil // made again: no copy to stamp
		}
		dep.ResourceVersion = fresh.ResourceVersion
		err = r.Update(ctx, dep)
	}
	if err != nil {
		return requeueOnRace(err)
	}
	return reconcile.Result{}, nil
}

// container is the pod's container of that name, added if missing; the
// other containers (a sidecar injected by another writer) stay.
func container(pod *corev1.PodSpec, name string) *corev1.Container {
	for i := range pod.Containers {
		if pod.Containers[i].Name == name {
			return &pod.Containers[i]
		}
	}
	pod.Containers = append(pod.Containers, corev1.Container{Name: name})
	return &pod.Containers[len(pod.Containers)-1]
}

func deploysWebAppOperator(stampFresh bool) properties.Operator {
	return webAppOperator(func(mgr ctrl.Manager) error {
		return ctrl.NewControllerManagedBy(mgr).For(&webappv1.WebApp{}).Owns(&appsv1.Deployment{}).
			Complete(&deploysWebApp{Client: mgr.GetClient(), live: mgr.GetAPIReader(), stampFresh: stampFresh})
	})
}

// TestLostUpdatesCatchFreshVersionOnStaleCopy: an operator that answers
// a 409 by stamping the fresh resourceVersion on its stale copy reverts
// another field manager's label, annotation, restart, sidecar: caught at
// the write.
func TestLostUpdatesCatchFreshVersionOnStaleCopy(t *testing.T) {
	expectCaught(t, deploysWebAppOperator(true), "100", "lost updates: ")
}

// TestLostUpdatesPassRequeueOnConflict: the same operator rebuilding from
// a fresh read after a 409 keeps every other writer's field.
func TestLostUpdatesPassRequeueOnConflict(t *testing.T) {
	defer properties.SetRapidFlags(t, map[string]string{"rapid.checks": "30", "rapid.seed": "1"})()
	properties.CheckOperator(t, deploysWebAppOperator(false))
}

// TestLostUpdatesCanBeSkipped: Operator.Skip["lost-updates"] turns the
// oracle off, with a reason: the operator above is then not failed by it
// (other oracles may still see what its writes did).
func TestLostUpdatesCanBeSkipped(t *testing.T) {
	op := deploysWebAppOperator(true)
	op.Skip = map[string]string{"lost-updates": "the other writer's fields are the operator's to reset"}
	defer properties.SetRapidFlags(t, map[string]string{"rapid.checks": "100", "rapid.seed": "1", "rapid.nofailfile": "true", "rapid.shrinktime": "1s"})()
	rep := properties.NewReport(t.Name())
	properties.CheckOperatorTB(rep, t, op)
	if strings.Contains(rep.Text(), "lost updates: ") {
		t.Fatalf("a skipped oracle failed the run:\n%s", rep.Text())
	}
}

// TestLostUpdatesCatchALossOnTheObjectMadeAgain: the exemption for an
// object deleted and made again covers only the incarnation the other
// writer wrote. Another writer labels the WebApp's Deployment and then
// deletes it; the operator makes it again, and the label is gone with
// the old one (exempt: the run passes up to there). The other writer
// labels the new Deployment, and the operator, its cache not yet
// holding that label, stamps the fresh resourceVersion on its stale
// copy: the label it reverts is the new incarnation's, caught.
func TestLostUpdatesCatchALossOnTheObjectMadeAgain(t *testing.T) {
	recreate := func(s *properties.OperatorScript) {
		s.Set("webapps", "a", map[string]any{"image": properties.ImageNames[0], "replicas": 1})
		s.Settle()
		s.Other("apps/v1", "Deployment", "a", "label")
		s.DriftDelete("apps/v1", "Deployment", "a")
		s.Settle()
	}
	op := deploysWebAppOperator(true)
	if msg := properties.RunOperatorScript(t, op, recreate); msg != "" {
		t.Fatalf("a label gone with its object failed the run:\n%s", msg)
	}
	msg := properties.RunOperatorScript(t, op, func(s *properties.OperatorScript) {
		recreate(s)
		s.Other("apps/v1", "Deployment", "a", "label")
		s.Set("webapps", "a", map[string]any{"image": properties.ImageNames[0], "replicas": 2})
		s.Deliver("webapps")
		s.Reconcile("a", operator.NoFaults)
	})
	t.Logf("caught: %s", strings.SplitN(msg, "\n", 2)[0])
	if !strings.Contains(msg, "lost updates: ") || !strings.Contains(msg, "converge.dev/other-writer") {
		t.Fatalf("the label lost on the Deployment made again was not caught:\n%s", msg)
	}
}
