package clients

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/yaml"

	"github.com/converge-dev/converge/examples/operator"
	webappv1 "github.com/converge-dev/converge/examples/operator/api/v1"
)

// webAppCRD is examples/operator's CRD, read strictly.
func webAppCRD(t *testing.T) *apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	y, err := os.ReadFile("../../examples/operator/config/crd/bases/webapp.example.com_webapps.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var crd apiextensionsv1.CustomResourceDefinition
	if err := yaml.UnmarshalStrict(y, &crd); err != nil {
		t.Fatal(err)
	}
	return &crd
}

func webAppScheme(t *testing.T) *runtime.Scheme {
	t.Helper()
	s := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	if err := webappv1.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	return s
}

// writeCounter counts the writes an operator makes through its client,
// and its Gets of WebApps (one starts each pass).
type writeCounter struct {
	client.Client
	passes atomic.Int32
	mu     sync.Mutex
	writes []string
}

func (c *writeCounter) wrote(verb string, obj client.Object) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.writes = append(c.writes, fmt.Sprintf("%s %T %s", verb, obj, obj.GetName()))
}

// since returns the writes after the first n.
func (c *writeCounter) since(n int) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.writes[n:]...)
}

func (c *writeCounter) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	if _, ok := obj.(*webappv1.WebApp); ok {
		c.passes.Add(1)
	}
	return c.Client.Get(ctx, key, obj, opts...)
}

func (c *writeCounter) Create(ctx context.Context, obj client.Object, opts ...client.CreateOption) error {
	c.wrote("create", obj)
	return c.Client.Create(ctx, obj, opts...)
}

func (c *writeCounter) Update(ctx context.Context, obj client.Object, opts ...client.UpdateOption) error {
	c.wrote("update", obj)
	return c.Client.Update(ctx, obj, opts...)
}

func (c *writeCounter) Patch(ctx context.Context, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
	c.wrote("patch", obj)
	return c.Client.Patch(ctx, obj, patch, opts...)
}

func (c *writeCounter) Delete(ctx context.Context, obj client.Object, opts ...client.DeleteOption) error {
	c.wrote("delete", obj)
	return c.Client.Delete(ctx, obj, opts...)
}

func (c *writeCounter) Status() client.SubResourceWriter {
	return &statusCounter{SubResourceWriter: c.Client.Status(), c: c}
}

type statusCounter struct {
	client.SubResourceWriter
	c *writeCounter
}

func (s *statusCounter) Update(ctx context.Context, obj client.Object, opts ...client.SubResourceUpdateOption) error {
	s.c.wrote("status update", obj)
	return s.SubResourceWriter.Update(ctx, obj, opts...)
}

func (s *statusCounter) Patch(ctx context.Context, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
	s.c.wrote("status patch", obj)
	return s.SubResourceWriter.Patch(ctx, obj, patch, opts...)
}

// waitFor polls cond for up to 60 s; cond says what is still missing.
func waitFor(t *testing.T, what string, cond func() error) {
	t.Helper()
	start := time.Now()
	deadline := start.Add(60 * time.Second)
	for {
		err := cond()
		if err == nil {
			t.Logf("%s after %v", what, time.Since(start).Round(time.Millisecond))
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s: %v", what, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// controlledBy says whether obj has a controller reference to app.
func controlledBy(obj client.Object, app *webappv1.WebApp) error {
	ref := metav1.GetControllerOf(obj)
	switch {
	case ref == nil:
		return fmt.Errorf("%T %s has no controller reference", obj, obj.GetName())
	case ref.UID != app.UID || ref.Kind != "WebApp" || ref.APIVersion != webappv1.GroupVersion.String() || !ptr.Deref(ref.BlockOwnerDeletion, false):
		return fmt.Errorf("%T %s: controller reference %+v, want WebApp %s (uid %s) blocking deletion", obj, obj.GetName(), *ref, app.Name, app.UID)
	}
	return nil
}

// children reads the WebApp's ConfigMap, Deployment and Service.
func children(ctx context.Context, cl client.Client, app *webappv1.WebApp) (*corev1.ConfigMap, *appsv1.Deployment, *corev1.Service, error) {
	cm, dep, svc := &corev1.ConfigMap{}, &appsv1.Deployment{}, &corev1.Service{}
	for _, o := range []struct {
		name string
		obj  client.Object
	}{{app.Name + "-config", cm}, {app.Name, dep}, {app.Name, svc}} {
		if err := cl.Get(ctx, types.NamespacedName{Namespace: app.Namespace, Name: o.name}, o.obj); err != nil {
			return nil, nil, nil, err
		}
		if err := controlledBy(o.obj, app); err != nil {
			return nil, nil, nil, err
		}
	}
	return cm, dep, svc, nil
}

// converged says whether the WebApp's children match its spec and its
// status reports all its replicas ready for its current generation.
func converged(ctx context.Context, cl client.Client, key types.NamespacedName) error {
	var app webappv1.WebApp
	if err := cl.Get(ctx, key, &app); err != nil {
		return err
	}
	if !slices.Contains(app.Finalizers, "webapp.example.com/cleanup") {
		return fmt.Errorf("finalizers %v", app.Finalizers)
	}
	cm, dep, svc, err := children(ctx, cl, &app)
	if err != nil {
		return err
	}
	if got := cm.Data["message"]; got != app.Spec.Message {
		return fmt.Errorf("ConfigMap message %q, want %q", got, app.Spec.Message)
	}
	if r := ptr.Deref(dep.Spec.Replicas, -1); r != app.Spec.Replicas {
		return fmt.Errorf("Deployment replicas %d, want %d", r, app.Spec.Replicas)
	}
	sel := map[string]string{"app.kubernetes.io/instance": app.Name}
	if dep.Spec.Selector == nil || !maps.Equal(dep.Spec.Selector.MatchLabels, sel) || dep.Spec.Template.Labels["app.kubernetes.io/instance"] != app.Name {
		return fmt.Errorf("Deployment selector %v, template labels %v", dep.Spec.Selector, dep.Spec.Template.Labels)
	}
	cs := dep.Spec.Template.Spec.Containers
	if len(cs) != 1 || cs[0].Name != "web" || cs[0].Image != app.Spec.Image || len(cs[0].Ports) != 1 || cs[0].Ports[0].ContainerPort != app.Spec.Port ||
		len(cs[0].Env) != 1 || cs[0].Env[0].Name != "MESSAGE" || cs[0].Env[0].ValueFrom == nil || cs[0].Env[0].ValueFrom.ConfigMapKeyRef == nil ||
		cs[0].Env[0].ValueFrom.ConfigMapKeyRef.Name != cm.Name || cs[0].Env[0].ValueFrom.ConfigMapKeyRef.Key != "message" {
		return fmt.Errorf("Deployment containers %+v", cs)
	}
	if p := svc.Spec.Ports; !maps.Equal(svc.Spec.Selector, sel) || len(p) != 1 || p[0].Port != app.Spec.Port || p[0].TargetPort.IntValue() != int(app.Spec.Port) {
		return fmt.Errorf("Service selector %v, ports %+v", svc.Spec.Selector, p)
	}
	st := app.Status
	avail := meta.FindStatusCondition(st.Conditions, "Available")
	if st.ObservedGeneration != app.Generation || st.ReadyReplicas != app.Spec.Replicas || avail == nil ||
		avail.Status != metav1.ConditionTrue || avail.Reason != "MinimumReplicasAvailable" {
		return fmt.Errorf("generation %d, status %+v", app.Generation, st)
	}
	if dep.Status.ReadyReplicas != app.Spec.Replicas {
		return fmt.Errorf("status claims %d ready, the Deployment has %d", st.ReadyReplicas, dep.Status.ReadyReplicas)
	}
	return nil
}

// TestExampleOperator runs examples/operator, unmodified, in a
// controller-runtime manager against converge's apiserver, whose own
// controllers and kubelets run the pods: a WebApp gets its finalizer, its
// owned ConfigMap, Deployment and Service, and an Available status once
// its pods are ready; a pass with nothing to do writes nothing; a spec
// change reaches the children; deleting the WebApp runs the finalizer and
// the garbage collector takes everything.
func TestExampleOperator(t *testing.T) {
	began := time.Now()
	c := start(t)
	installCRD(t, c, webAppCRD(t))
	scheme := webAppScheme(t)
	mgr, err := ctrl.NewManager(c.cfg, ctrl.Options{Scheme: scheme,
		Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0",
		Controller: config.Controller{SkipNameValidation: ptr.To(true)}})
	if err != nil {
		t.Fatal(err)
	}
	counter := &writeCounter{Client: mgr.GetClient()}
	if err := (&operator.WebAppReconciler{Client: counter, Scheme: mgr.GetScheme()}).SetupWithManager(mgr); err != nil {
		t.Fatal(err)
	}
	runManager(t, mgr)

	cl, err := client.New(c.cfg, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	key := types.NamespacedName{Namespace: "default", Name: "shop"}
	app := &webappv1.WebApp{ObjectMeta: metav1.ObjectMeta{Name: key.Name, Namespace: key.Namespace},
		Spec: webappv1.WebAppSpec{Image: "nginx:1.27", Replicas: 2, Port: 8080, Message: "hello"}}
	if err := cl.Create(ctx(t), app); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the WebApp's children and 2 ready replicas", func() error { return converged(context.Background(), cl, key) })

	// Quiet: no writes for a second. Then a metadata-only change makes
	// one more pass, which must find nothing to write.
	var quiet int
	waitFor(t, "the operator to stop writing", func() error {
		n := len(counter.since(0))
		time.Sleep(time.Second)
		if w := counter.since(n); len(w) > 0 {
			return fmt.Errorf("still writing: %v", w)
		}
		quiet = n
		return nil
	})
	passes := counter.passes.Load()
	if err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if err := cl.Get(ctx(t), key, app); err != nil {
			return err
		}
		metav1.SetMetaDataAnnotation(&app.ObjectMeta, "e2e.converge.dev/poke", "1")
		return cl.Update(ctx(t), app)
	}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "a pass over the annotated WebApp", func() error {
		if counter.passes.Load() == passes {
			return errors.New("no pass yet")
		}
		return nil
	})
	// The pass counted may be an earlier one still running; the
	// annotation's own follows within a moment.
	time.Sleep(time.Second)
	if w := counter.since(quiet); len(w) > 0 {
		t.Fatalf("a pass with nothing to do wrote: %v", w)
	}

	// A spec change reaches the Deployment and the ConfigMap.
	if err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if err := cl.Get(ctx(t), key, app); err != nil {
			return err
		}
		app.Spec.Replicas, app.Spec.Message = 3, "bye"
		return cl.Update(ctx(t), app)
	}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "3 ready replicas and the new message", func() error { return converged(context.Background(), cl, key) })

	// Deleting the WebApp: the finalizer deletes the ConfigMap, then
	// goes; the garbage collector takes the Deployment and the Service.
	if err := cl.Get(ctx(t), key, app); err != nil {
		t.Fatal(err)
	}
	if err := cl.Delete(ctx(t), app); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the WebApp and its children to go", func() error {
		for _, o := range []struct {
			name string
			obj  client.Object
		}{{"shop", &webappv1.WebApp{}}, {"shop-config", &corev1.ConfigMap{}}, {"shop", &appsv1.Deployment{}}, {"shop", &corev1.Service{}}} {
			err := cl.Get(context.Background(), types.NamespacedName{Namespace: "default", Name: o.name}, o.obj)
			if !apierrors.IsNotFound(err) {
				return fmt.Errorf("%T %s: %v", o.obj, o.name, err)
			}
		}
		return nil
	})
	t.Logf("operator writes: %d; whole test %v", len(counter.since(0)), time.Since(began).Round(time.Millisecond))
}

// TestExampleOperatorSchema: the example's CRD validates and defaults as
// its markers say: replicas 7 is refused with 422 on spec.replicas, and
// a WebApp without replicas and port gets 1 and 8080.
func TestExampleOperatorSchema(t *testing.T) {
	c := start(t)
	installCRD(t, c, webAppCRD(t))
	cl, err := client.New(c.cfg, client.Options{Scheme: webAppScheme(t)})
	if err != nil {
		t.Fatal(err)
	}
	bad := &webappv1.WebApp{ObjectMeta: metav1.ObjectMeta{Name: "big", Namespace: "default"},
		Spec: webappv1.WebAppSpec{Image: "nginx:1.27", Replicas: 7, Port: 8080}}
	err = cl.Create(ctx(t), bad)
	var status apierrors.APIStatus
	if !errors.As(err, &status) || status.Status().Code != 422 || !apierrors.IsInvalid(err) {
		t.Fatalf("creating a WebApp with 7 replicas: %v, want 422 Invalid", err)
	}
	var fields []string
	if d := status.Status().Details; d != nil {
		for _, cause := range d.Causes {
			fields = append(fields, cause.Field)
		}
	}
	if len(fields) != 1 || fields[0] != "spec.replicas" || !strings.Contains(err.Error(), "spec.replicas") {
		t.Fatalf("creating a WebApp with 7 replicas: %v (causes on %v), want one cause on spec.replicas", err, fields)
	}

	// Unstructured, to leave replicas and port out (the Go type has no
	// omitempty on them).
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": webappv1.GroupVersion.String(), "kind": "WebApp",
		"metadata": map[string]any{"name": "small", "namespace": "default"},
		"spec":     map[string]any{"image": "nginx:1.27"},
	}}
	if err := cl.Create(ctx(t), u); err != nil {
		t.Fatal(err)
	}
	var got webappv1.WebApp
	if err := cl.Get(ctx(t), client.ObjectKeyFromObject(u), &got); err != nil {
		t.Fatal(err)
	}
	if got.Spec.Replicas != 1 || got.Spec.Port != 8080 {
		t.Fatalf("defaults: replicas %d, port %d; want 1, 8080", got.Spec.Replicas, got.Spec.Port)
	}

	// kubectl get's table: the printer columns.
	raw, err := c.cs.CoreV1().RESTClient().Get().AbsPath("/apis/webapp.example.com/v1/namespaces/default/webapps").
		SetHeader("Accept", "application/json;as=Table;v=v1;g=meta.k8s.io").DoRaw(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	var table metav1.Table
	if err := json.Unmarshal(raw, &table); err != nil {
		t.Fatal(err)
	}
	var cols []string
	for _, col := range table.ColumnDefinitions {
		cols = append(cols, col.Name)
	}
	if want := []string{"Name", "Image", "Replicas", "Ready", "Age"}; !slices.Equal(cols, want) || len(table.Rows) != 1 ||
		len(table.Rows[0].Cells) != len(want) || table.Rows[0].Cells[0] != "small" || table.Rows[0].Cells[1] != "nginx:1.27" {
		t.Fatalf("table: columns %v, rows %+v; want columns %v and one row for small", cols, table.Rows, want)
	}
}
