package clients

import (
	"context"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// webOperator is an operator as kubebuilder scaffolds one: a Widget owns
// a Deployment of its image and replicas (SetControllerReference, Owns),
// and reports the Deployment's ready replicas in its status.
type webOperator struct{ c client.Client }

func (o *webOperator) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	var w Widget
	if err := o.c.Get(ctx, req.NamespacedName, &w); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: w.Name + "-web", Namespace: w.Namespace}}
	if _, err := controllerutil.CreateOrUpdate(ctx, o.c, d, func() error {
		labels := map[string]string{"widget": w.Name}
		d.Spec.Replicas = ptr.To(int32(w.Spec.Replicas))
		d.Spec.Selector = &metav1.LabelSelector{MatchLabels: labels}
		d.Spec.Template.Labels = labels
		d.Spec.Template.Spec.Containers = []corev1.Container{{Name: "web", Image: w.Spec.Image}}
		return controllerutil.SetControllerReference(&w, d, o.c.Scheme())
	}); err != nil {
		return reconcile.Result{}, err
	}
	if w.Status.ReadyReplicas != int64(d.Status.ReadyReplicas) {
		w.Status.ReadyReplicas = int64(d.Status.ReadyReplicas)
		return reconcile.Result{}, o.c.Status().Update(ctx, &w)
	}
	return reconcile.Result{}, nil
}

// TestOperatorOwnsADeployment: an unmodified controller-runtime operator
// on converge: its Widget's Deployment is rolled out by converge's
// controllers and kubelets, the operator sees its pods become ready, and
// deleting the Widget takes the Deployment and its pods, as the garbage
// collector does.
func TestOperatorOwnsADeployment(t *testing.T) {
	c := start(t)
	installCRD(t, c, widgetCRD(t))
	mgr, err := ctrl.NewManager(c.cfg, ctrl.Options{Scheme: widgetScheme(t),
		Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0"})
	if err != nil {
		t.Fatal(err)
	}
	if err := ctrl.NewControllerManagedBy(mgr).For(&Widget{}).Owns(&appsv1.Deployment{}).
		WithOptions(controller.Options{SkipNameValidation: ptr.To(true)}).Complete(&webOperator{c: mgr.GetClient()}); err != nil {
		t.Fatal(err)
	}
	runManager(t, mgr)

	cl := mgr.GetAPIReader()
	w := &Widget{ObjectMeta: metav1.ObjectMeta{Name: "shop", Namespace: "default"}, Spec: WidgetSpec{Image: "nginx:1.27", Replicas: 2}}
	writer, err := client.New(c.cfg, client.Options{Scheme: widgetScheme(t)})
	if err != nil {
		t.Fatal(err)
	}
	if err := writer.Create(ctx(t), w); err != nil {
		t.Fatal(err)
	}
	key := types.NamespacedName{Namespace: "default", Name: "shop"}
	eventually(t, "the Widget to report 2 ready replicas", func() bool {
		var got Widget
		return cl.Get(context.Background(), key, &got) == nil && got.Status.ReadyReplicas == 2
	})
	var pods corev1.PodList
	if err := cl.List(ctx(t), &pods, client.InNamespace("default"), client.MatchingLabels{"widget": "shop"}); err != nil || len(pods.Items) != 2 {
		t.Fatalf("pods of the widget: %d (%v)", len(pods.Items), err)
	}

	// Scaling the Widget scales its Deployment.
	var got Widget
	if err := cl.Get(ctx(t), key, &got); err != nil {
		t.Fatal(err)
	}
	got.Spec.Replicas = 3
	if err := writer.Update(ctx(t), &got); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the Widget to report 3 ready replicas", func() bool {
		var got Widget
		return cl.Get(context.Background(), key, &got) == nil && got.Status.ReadyReplicas == 3
	})

	// Deleting the Widget (background, controller-runtime's default)
	// takes its Deployment, then the Deployment's pods.
	if err := writer.Delete(ctx(t), &got); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the Widget's Deployment to go", func() bool {
		var d appsv1.Deployment
		return apierrors.IsNotFound(cl.Get(context.Background(), types.NamespacedName{Namespace: "default", Name: "shop-web"}, &d))
	})
	eventually(t, "the Widget's pods to go", func() bool {
		var pods corev1.PodList
		return cl.List(context.Background(), &pods, client.InNamespace("default"), client.MatchingLabels{"widget": "shop"}) == nil && len(pods.Items) == 0
	})
}
