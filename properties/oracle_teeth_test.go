package properties_test

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"pgregory.net/rapid"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	webappv1 "github.com/converge-dev/converge/examples/operator/api/v1"
	"github.com/converge-dev/converge/properties"
	"github.com/converge-dev/converge/properties/crdgen"
	fleetv1 "github.com/converge-dev/converge/properties/testdata/fleet/api/v1"
)

// expectCaught runs op, which must fail with want in its report.
func expectCaught(t *testing.T, op properties.Operator, checks, want string) {
	t.Helper()
	expectCaughtIn(t, op, map[string]string{"rapid.checks": checks}, want)
}

// expectCaughtIn is expectCaught with rapid's flags; want may list
// alternatives separated by "||".
func expectCaughtIn(t *testing.T, op properties.Operator, flags map[string]string, want string) {
	t.Helper()
	flags["rapid.seed"], flags["rapid.nofailfile"] = "1", "true"
	defer properties.SetRapidFlags(t, flags)()
	rep := properties.NewReport(t.Name())
	properties.CheckOperatorTB(rep, t, op)
	if !rep.Failed() {
		t.Fatalf("the seeded bug passed %s checks", flags["rapid.checks"])
	}
	if !slices.ContainsFunc(strings.Split(want, "||"), func(w string) bool { return strings.Contains(rep.Text(), w) }) {
		t.Fatalf("the seeded bug failed, but not with %q:\n%s", want, rep.Text())
	}
	t.Logf("caught: %s", strings.SplitN(rep.Text(), "\n", 2)[0])
}

func webAppScheme() *runtime.Scheme {
	s := runtime.NewScheme()
	_ = clientgoscheme.AddToScheme(s)
	_ = webappv1.AddToScheme(s)
	return s
}

var images = rapid.Map(rapid.SampledFrom(properties.ImageNames), func(s string) any { return s })

// webAppOperator is a WebApp operator of the test's own, on the example's
// CRD.
func webAppOperator(setup func(ctrl.Manager) error) properties.Operator {
	return properties.Operator{
		CRDs:     "../examples/operator/config/crd/bases",
		Scheme:   webAppScheme(),
		Setup:    setup,
		NoFaults: true,
		Fields:   map[string][]crdgen.Option{"webapps": {crdgen.WithField("spec.image", images)}},
	}
}

// readyFromSpec keeps a WebApp's Deployment and says Ready=True as soon
// as it has written it: readiness from the spec, not from what it
// controls.
type readyFromSpec struct{ client.Client }

func (r *readyFromSpec) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	var app webappv1.WebApp
	if err := r.Get(ctx, req.NamespacedName, &app); err != nil || !app.DeletionTimestamp.IsZero() {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	dep := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: app.Name, Namespace: app.Namespace}}
	if _, err := controllerutil.CreateOrUpdate(ctx, r, dep, func() error {
		replicas := app.Spec.Replicas
		dep.Spec.Replicas = &replicas
		if dep.Spec.Selector == nil {
			dep.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": app.Name}}
		}
		dep.Spec.Template.Labels = map[string]string{"app": app.Name}
		if len(dep.Spec.Template.Spec.Containers) != 1 {
			dep.Spec.Template.Spec.Containers = []corev1.Container{{Name: "web"}}
		}
		dep.Spec.Template.Spec.Containers[0].Image = app.Spec.Image
		return controllerutil.SetControllerReference(&app, dep, r.Scheme())
	}); err != nil {
		return requeueOnRace(err)
	}
	// The bug: Ready because the Deployment was written, not because it
	// is available.
	if meta.SetStatusCondition(&app.Status.Conditions, metav1.Condition{Type: "Ready", Status: metav1.ConditionTrue, Reason: "Deployed",
		ObservedGeneration: app.Generation}) {
		return reconcile.Result{}, client.IgnoreNotFound(r.Status().Update(ctx, &app))
	}
	return reconcile.Result{}, nil
}

// TestStatusHonestyCatchesReadyFromSpec: an operator that says Ready=True
// in the reconcile that writes its Deployment, before any pod is ready,
// is caught once the deployment controller answers with a Deployment
// that is not yet Current, though every pod becomes ready in the end.
func TestStatusHonestyCatchesReadyFromSpec(t *testing.T) {
	expectCaught(t, webAppOperator(func(mgr ctrl.Manager) error {
		return ctrl.NewControllerManagedBy(mgr).For(&webappv1.WebApp{}).Owns(&appsv1.Deployment{}).Complete(&readyFromSpec{Client: mgr.GetClient()})
	}), "50", "status honesty: ")
}

// TestStatusHonestyCanBeSkipped: Operator.Skip turns the oracle off,
// with a reason; a name it does not know, or no reason, is refused.
func TestStatusHonestyCanBeSkipped(t *testing.T) {
	op := webAppOperator(func(mgr ctrl.Manager) error {
		return ctrl.NewControllerManagedBy(mgr).For(&webappv1.WebApp{}).Owns(&appsv1.Deployment{}).Complete(&readyFromSpec{Client: mgr.GetClient()})
	})
	op.Skip = map[string]string{"status-honesty": "Ready means the Deployment was written"}
	defer properties.SetRapidFlags(t, map[string]string{"rapid.checks": "20", "rapid.seed": "1"})()
	properties.CheckOperator(t, op)
	for skip, want := range map[string]string{"status-honest": `names "status-honest"`, "status-honesty": "without a reason"} {
		op.Skip = map[string]string{skip: " "}
		rep := properties.NewReport(t.Name())
		properties.CheckOperatorTB(rep, t, op)
		if !rep.Failed() || !strings.Contains(rep.Text(), want) {
			t.Errorf("Skip %q: want a refusal with %q, got:\n%s", skip, want, rep.Text())
		}
	}
}

// configChild keeps a Fleet's ConfigMap, whose data tells how many of
// its pods are ready (as operators publish a member list), and a
// Deployment whose pods read it through env (byEnv) or a mounted volume;
// the pod template carries no hash of it, so a change of the ConfigMap
// rolls no pod: its pods started before the data they read changed.
type configChild struct {
	client.Client
	byEnv bool
}

func (r *configChild) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	var f fleetv1.Fleet
	if err := r.Get(ctx, req.NamespacedName, &f); err != nil || !f.DeletionTimestamp.IsZero() {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	dep := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: f.Name, Namespace: f.Namespace}}
	if err := r.Get(ctx, client.ObjectKeyFromObject(dep), dep); client.IgnoreNotFound(err) != nil {
		return reconcile.Result{}, err
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: f.Name + "-config", Namespace: f.Namespace}}
	if _, err := controllerutil.CreateOrUpdate(ctx, r, cm, func() error {
		cm.Data = map[string]string{"ready": strconv.Itoa(int(dep.Status.ReadyReplicas))}
		return controllerutil.SetControllerReference(&f, cm, r.Scheme())
	}); err != nil {
		return requeueOnRace(err)
	}
	if _, err := controllerutil.CreateOrUpdate(ctx, r, dep, func() error {
		one := int32(1)
		dep.Spec.Replicas = &one
		if dep.Spec.Selector == nil {
			dep.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"fleet": f.Name}}
		}
		dep.Spec.Template.Labels = map[string]string{"fleet": f.Name}
		pod := &dep.Spec.Template.Spec
		if len(pod.Containers) != 1 {
			pod.Containers = []corev1.Container{{Name: "app"}}
		}
		c := &pod.Containers[0]
		c.Image = properties.ImageNames[0]
		src := corev1.LocalObjectReference{Name: cm.Name}
		if r.byEnv {
			c.Env = []corev1.EnvVar{{Name: "READY", ValueFrom: &corev1.EnvVarSource{ConfigMapKeyRef: &corev1.ConfigMapKeySelector{LocalObjectReference: src, Key: "ready"}}}}
		} else {
			if len(pod.Volumes) != 1 {
				pod.Volumes = []corev1.Volume{{Name: "config"}}
			}
			if pod.Volumes[0].ConfigMap == nil {
				pod.Volumes[0].ConfigMap = &corev1.ConfigMapVolumeSource{}
			}
			pod.Volumes[0].ConfigMap.LocalObjectReference = src
			c.VolumeMounts = []corev1.VolumeMount{{Name: "config", MountPath: "/etc/fleet"}}
		}
		return controllerutil.SetControllerReference(&f, dep, r.Scheme())
	}); err != nil {
		return requeueOnRace(err)
	}
	return reconcile.Result{}, nil
}

func configOperator(byEnv bool) properties.Operator {
	return properties.Operator{
		CRDs:   "testdata/fleet/config/crd/bases",
		Scheme: fleetScheme(),
		Kinds:  []string{"fleets"},
		// One Fleet, whose updates change only ships, and so its
		// ConfigMap: updates after its pod runs are likely.
		Names:    []string{"a"},
		Fields:   map[string][]crdgen.Option{"fleets": {crdgen.WithField("spec.speed", rapid.Just[any](1))}},
		NoFaults: true,
		Setup: func(mgr ctrl.Manager) error {
			return ctrl.NewControllerManagedBy(mgr).For(&fleetv1.Fleet{}).Owns(&corev1.ConfigMap{}).Owns(&appsv1.Deployment{}).
				Complete(&configChild{Client: mgr.GetClient(), byEnv: byEnv})
		},
	}
}

// TestConfigReachesPodsCatchesEnvConsumers: an operator that changes the
// ConfigMap its pods read through env, and rolls no pod, is caught.
func TestConfigReachesPodsCatchesEnvConsumers(t *testing.T) {
	expectCaught(t, configOperator(true), "50", "config reaches pods: ")
}

// TestConfigReachesPodsExemptsMountedVolumes: the same operator, its pods
// reading the ConfigMap as a mounted volume (which the kubelet updates in
// place), passes.
func TestConfigReachesPodsExemptsMountedVolumes(t *testing.T) {
	defer properties.SetRapidFlags(t, map[string]string{"rapid.checks": "50", "rapid.seed": "1"})()
	properties.CheckOperator(t, configOperator(false))
}

// unwatchedChild keeps a Fleet's ConfigMap but does not watch
// ConfigMaps (no Owns): another writer's change of it reaches the
// operator only on a resync.
type unwatchedChild struct{ client.Client }

func (r *unwatchedChild) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
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
	return reconcile.Result{}, nil
}

// TestEventsAloneReportsAMissingWatch: an operator that does not Owns()
// the ConfigMap it keeps repairs another writer's change of it only on
// a resync, and the failure says so.
func TestEventsAloneReportsAMissingWatch(t *testing.T) {
	expectCaught(t, properties.Operator{
		CRDs:   "testdata/fleet/config/crd/bases",
		Scheme: fleetScheme(),
		Kinds:  []string{"fleets"},
		// One Fleet whose spec never changes: only the drift moves its
		// ConfigMap, and nothing else brings the Fleet back.
		Names:    []string{"a"},
		Fields:   map[string][]crdgen.Option{"fleets": {crdgen.WithField("spec.ships", rapid.Just[any](1)), crdgen.WithField("spec.speed", rapid.Just[any](1))}},
		NoFaults: true,
		Setup: func(mgr ctrl.Manager) error {
			return ctrl.NewControllerManagedBy(mgr).For(&fleetv1.Fleet{}).Complete(&unwatchedChild{Client: mgr.GetClient()})
		},
	}, "400", "events alone: a missing watch: ||differential: ConfigMap default/a-config only in this run||differential: ConfigMap default/a-config data.ships differs")
	// The differential replays the drift (its history of inputs), and a
	// reference without the watch keeps the drift (a delete, or the data
	// it set): when a later
	// reconcile here happened to repair it, the run differs from the
	// reference before the resync can name the missing watch. Either
	// failure is the missing watch's.
}
