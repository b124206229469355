package properties_test

import (
	"context"
	"strconv"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	webappv1 "github.com/converge-dev/converge/examples/operator/api/v1"
	"github.com/converge-dev/converge/impl/operator"
	"github.com/converge-dev/converge/properties"
	fleetv1 "github.com/converge-dev/converge/properties/testdata/fleet/api/v1"
)

// The differential's exemptions (a masked field, a status left out) each
// must let through only what differs between two correct runs. Each test
// here runs an operator with the one bug such an exemption could hide,
// by a written script, and asserts the differential still names it.
//
// The bug is the same throughout: createOnly sets some of its child's
// fields only in the reconcile that creates the child, so a later input
// never reaches them. The script makes the run differ from the
// reference: the first reconcile creates the child from the first input,
// then its status write fails (an injected 500), so the input is not
// settled; the next input comes before any reconcile succeeds. The
// reference replays the unsettled input right before the next one, with
// no reconcile between, and creates the child from the second: its child
// has the second input's values, this run's the first's.

// createOnly keeps one child of a WebApp, of the type child makes; set
// fills it from the WebApp, and its created-only fields only when
// created (the bug). It then writes the WebApp's status.
type createOnly struct {
	client.Client
	child func() client.Object
	set   func(app *webappv1.WebApp, obj client.Object, created bool)
}

func (r *createOnly) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	var app webappv1.WebApp
	if err := r.Get(ctx, req.NamespacedName, &app); err != nil || !app.DeletionTimestamp.IsZero() {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	obj := r.child()
	obj.SetName(app.Name)
	obj.SetNamespace(app.Namespace)
	if _, err := controllerutil.CreateOrUpdate(ctx, r, obj, func() error {
		r.set(&app, obj, obj.GetUID() == "")
		return controllerutil.SetControllerReference(&app, obj, r.Scheme())
	}); err != nil {
		return requeueOnRace(err)
	}
	app.Status.ObservedGeneration = app.Generation
	return requeueOnRace(r.Status().Update(ctx, &app))
}

func createOnlyOperator(child func() client.Object, set func(app *webappv1.WebApp, obj client.Object, created bool)) properties.Operator {
	return webAppOperator(func(mgr ctrl.Manager) error {
		b := ctrl.NewControllerManagedBy(mgr).For(&webappv1.WebApp{}).Owns(child())
		return b.Complete(&createOnly{Client: mgr.GetClient(), child: child, set: set})
	})
}

// unsettledThenUpdated is the script: WebApp a from first, reconciled
// with its status write failing, then updated to second, then the end.
func unsettledThenUpdated(first, second map[string]any) func(*properties.OperatorScript) {
	return func(s *properties.OperatorScript) {
		s.Set("webapps", "a", first)
		s.Deliver("webapps")
		s.Reconcile("a", operator.Faults{CrashAfter: -1, FailRequest: 2}) // 1: the child's create; 2: the status
		s.Set("webapps", "a", second)
	}
}

// expectDifferential runs the script and wants the differential's
// failure naming want (a difference's first line).
func expectDifferential(t *testing.T, op properties.Operator, script func(*properties.OperatorScript), want string) {
	t.Helper()
	msg := properties.RunOperatorScript(t, op, script)
	diff, _, _ := strings.Cut(msg, "\nsteps (")
	t.Logf("caught: %s", diff)
	if !strings.HasPrefix(msg, "differential: ") || !strings.Contains(msg, want) {
		t.Fatalf("want the differential naming %q, got:\n%s", want, msg)
	}
}

// webDeployment is a one-container Deployment of the WebApp's image;
// replicas too unless replicasOnCreate, which sets them only when created.
func webDeployment(app *webappv1.WebApp, d *appsv1.Deployment, created, replicasOnCreate bool) {
	if created || !replicasOnCreate {
		n := app.Spec.Replicas
		d.Spec.Replicas = &n
	}
	d.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": app.Name}}
	d.Spec.Template.Labels = map[string]string{"app": app.Name}
	if len(d.Spec.Template.Spec.Containers) != 1 {
		d.Spec.Template.Spec.Containers = []corev1.Container{{Name: "web"}}
	}
	d.Spec.Template.Spec.Containers[0].Image = app.Spec.Image
}

func newDeployment() client.Object { return &appsv1.Deployment{} }

// TestStuckRolloutKeepsItsSpecCompared: a Deployment stuck on an image
// the kubelet cannot parse is compared without its status (and its
// WebApp's), never without its spec: replicas the operator set only on
// create, from an input a later one replaced, are caught.
func TestStuckRolloutKeepsItsSpecCompared(t *testing.T) {
	op := createOnlyOperator(newDeployment, func(app *webappv1.WebApp, obj client.Object, created bool) {
		webDeployment(app, obj.(*appsv1.Deployment), created, true)
	})
	const stuck = "NGINX:1" // upper case: no repository name, so InvalidImageName
	expectDifferential(t, op, unsettledThenUpdated(map[string]any{"image": stuck, "replicas": 1}, map[string]any{"image": stuck, "replicas": 2}),
		"Deployment default/a spec.replicas differs")
}

// TestStatefulSetRevisionMaskKeepsTheTemplateCompared: a StatefulSet's
// revisions (status, and the controller-revision-hash label) are masked
// as a hash of its template; the template itself is compared: an image
// the operator set only on create is caught.
func TestStatefulSetRevisionMaskKeepsTheTemplateCompared(t *testing.T) {
	op := createOnlyOperator(func() client.Object { return &appsv1.StatefulSet{} }, func(app *webappv1.WebApp, obj client.Object, created bool) {
		set := obj.(*appsv1.StatefulSet)
		n := app.Spec.Replicas
		set.Spec.Replicas = &n
		set.Spec.ServiceName = app.Name
		set.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": app.Name}}
		set.Spec.Template.Labels = map[string]string{"app": app.Name}
		if created {
			set.Spec.Template.Spec.Containers = []corev1.Container{{Name: "web", Image: app.Spec.Image}}
		}
	})
	expectDifferential(t, op, unsettledThenUpdated(map[string]any{"image": properties.ImageNames[0], "replicas": 1}, map[string]any{"image": properties.ImageNames[1], "replicas": 1}),
		"StatefulSet default/a spec.template.spec.containers")
}

// TestPullPolicyTheUserAskedForIsCompared: a container's imagePullPolicy
// is masked where the apiserver defaulted it (from the image it had when
// made), not where it is the user's: an operator that sets the policy a
// WebApp asks for (its message, here) only on create leaves the default
// where the user later asked for Never, caught.
func TestPullPolicyTheUserAskedForIsCompared(t *testing.T) {
	op := createOnlyOperator(newDeployment, func(app *webappv1.WebApp, obj client.Object, created bool) {
		d := obj.(*appsv1.Deployment)
		webDeployment(app, d, created, false)
		if created {
			d.Spec.Template.Spec.Containers[0].ImagePullPolicy = corev1.PullPolicy(app.Spec.Message)
		}
	})
	img := properties.ImageNames[0]
	expectDifferential(t, op, unsettledThenUpdated(map[string]any{"image": img, "replicas": 1}, map[string]any{"image": img, "replicas": 1, "message": "Never"}),
		"Deployment default/a spec.template.spec.containers")
}

// TestNodePortTheUserAskedForIsCompared: a Service's node ports are
// masked where the apiserver allocated them, not where they are the
// user's: an operator that sets the node port a WebApp asks for (its
// port) only on create keeps the first one, caught.
func TestNodePortTheUserAskedForIsCompared(t *testing.T) {
	op := createOnlyOperator(func() client.Object { return &corev1.Service{} }, func(app *webappv1.WebApp, obj client.Object, created bool) {
		svc := obj.(*corev1.Service)
		svc.Spec.Type = corev1.ServiceTypeNodePort
		svc.Spec.Selector = map[string]string{"app": app.Name}
		if created {
			svc.Spec.Ports = []corev1.ServicePort{{Name: "http", Port: 80, NodePort: app.Spec.Port}}
		}
	})
	img := properties.ImageNames[0]
	expectDifferential(t, op, unsettledThenUpdated(map[string]any{"image": img, "port": 30080}, map[string]any{"image": img, "port": 30081}),
		"Service default/a spec.ports")
}

// shipLabels keeps a Ship's ConfigMap: its fleet as a label, which the
// apiserver refuses when the user wrote no valid label value, and its
// speed, set only when created (the bug). It then writes the Ship's
// status.
type shipLabels struct{ client.Client }

func (r *shipLabels) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	var s fleetv1.Ship
	if err := r.Get(ctx, req.NamespacedName, &s); err != nil || !s.DeletionTimestamp.IsZero() {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: s.Namespace, Name: s.Name + "-labels"}}
	if _, err := controllerutil.CreateOrUpdate(ctx, r, cm, func() error {
		cm.Labels = map[string]string{"fleet": s.Spec.Fleet}
		if cm.UID == "" {
			cm.Data = map[string]string{"speed": strconv.Itoa(int(s.Spec.Speed))}
		}
		return controllerutil.SetControllerReference(&s, cm, r.Scheme())
	}); err != nil {
		return requeueOnRace(err)
	}
	s.Status.ObservedSpeed = s.Spec.Speed
	return requeueOnRace(r.Status().Update(ctx, &s))
}

// TestRefusedInputLeavesTheOthersCompared: a refused input takes its own
// custom resource and children out of the differential, not the run's
// others: with Ship a's fleet refused as a label, Ship b's speed, which
// the operator set only on create from an input a later one replaced,
// is caught.
func TestRefusedInputLeavesTheOthersCompared(t *testing.T) {
	op := properties.Operator{CRDs: "testdata/fleet/config/crd/bases", Scheme: fleetScheme(), Kinds: []string{"ships"},
		Setup: func(mgr ctrl.Manager) error {
			return ctrl.NewControllerManagedBy(mgr).For(&fleetv1.Ship{}).Owns(&corev1.ConfigMap{}).Complete(&shipLabels{Client: mgr.GetClient()})
		}}
	expectDifferential(t, op, func(s *properties.OperatorScript) {
		s.Set("ships", "a", map[string]any{"fleet": " AA`", "speed": 1}) // no label value
		s.Settle()
		s.Set("ships", "b", map[string]any{"fleet": "x", "speed": 1})
		s.Deliver("ships")
		s.Reconcile("b", operator.Faults{CrashAfter: -1, FailRequest: 2}) // 1: the ConfigMap's create; 2: the status
		s.Set("ships", "b", map[string]any{"fleet": "x", "speed": 2})
	}, "ConfigMap default/b-labels data.speed differs")
}
