package clients

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclientset "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	crscheme "sigs.k8s.io/controller-runtime/pkg/scheme"
	"sigs.k8s.io/yaml"
)

// The worked example's CRD (examples/crd/bases/example.com_widgets.yaml), used unchanged:
// the custom-resource table is the process's, and two control planes may
// serve one resource only with one definition.
const widgetCRDName = "widgets.example.com"

var (
	widgetsV1      = schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"}
	widgetsV1beta1 = schema.GroupVersionResource{Group: "example.com", Version: "v1beta1", Resource: "widgets"}
)

// holdFinalizer is a finalizer of the test's own, to keep a custom
// resource (and so its CRD) from going.
const holdFinalizer = "e2e.converge.dev/hold"

// widgetCRD is the worked example's CRD as the apiextensions types read
// it (strictly: a field they do not know is an error).
func widgetCRD(t *testing.T) *apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	y, err := os.ReadFile("../../examples/crd/bases/example.com_widgets.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var crd apiextensionsv1.CustomResourceDefinition
	if err := yaml.UnmarshalStrict(y, &crd); err != nil {
		t.Fatal(err)
	}
	if crd.Name != widgetCRDName {
		t.Fatalf("the example's CRD is %q", crd.Name)
	}
	return &crd
}

// jsonClientset is the apiextensions clientset sending JSON, not its
// default protobuf.
func jsonClientset(t *testing.T, c *converge) apiextensionsclientset.Interface {
	t.Helper()
	cfg := rest.CopyConfig(c.cfg)
	cfg.ContentType = "application/json"
	ax, err := apiextensionsclientset.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return ax
}

// installCRD creates crd with the apiextensions clientset and waits, as
// users and envtest do, until its Established condition is True. A
// cleanup deletes it if the test has not, so that the process's
// custom-resource table does not keep serving it.
func installCRD(t *testing.T, c *converge, crd *apiextensionsv1.CustomResourceDefinition) (apiextensionsclientset.Interface, *apiextensionsv1.CustomResourceDefinition) {
	t.Helper()
	ax, err := apiextensionsclientset.NewForConfig(c.cfg) // protobuf, as users build it
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ax.ApiextensionsV1().CustomResourceDefinitions().Create(ctx(t), crd, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { removeCRD(t, c, ax, crd) })
	return ax, waitEstablished(t, ax, crd.Name)
}

// waitEstablished polls the CRD's conditions until Established is True;
// NamesAccepted False fails at once.
func waitEstablished(t *testing.T, ax apiextensionsclientset.Interface, name string) *apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	var got *apiextensionsv1.CustomResourceDefinition
	start := time.Now()
	err := wait.PollUntilContextTimeout(ctx(t), 50*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		var err error
		got, err = ax.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		for _, cond := range got.Status.Conditions {
			switch {
			case cond.Type == apiextensionsv1.Established && cond.Status == apiextensionsv1.ConditionTrue:
				return true, nil
			case cond.Type == apiextensionsv1.NamesAccepted && cond.Status == apiextensionsv1.ConditionFalse:
				return false, fmt.Errorf("names not accepted: %s: %s", cond.Reason, cond.Message)
			}
		}
		return false, nil
	})
	if err != nil {
		t.Fatalf("waiting for CRD %s to be established: %v (status %+v)", name, err, statusOf(got))
	}
	t.Logf("CRD %s established after %v", name, time.Since(start).Round(time.Millisecond))
	return got
}

// codeOf is the HTTP status code of an API error (0 for nil or another
// error).
func codeOf(err error) int32 {
	var st apierrors.APIStatus
	if errors.As(err, &st) {
		return st.Status().Code
	}
	return 0
}

func statusOf(crd *apiextensionsv1.CustomResourceDefinition) any {
	if crd == nil {
		return nil
	}
	return crd.Status
}

// removeCRD deletes crd if it is still there and waits for it to go,
// taking the test's hold finalizer off what it keeps; it only logs, as a
// cleanup after a test that failed.
func removeCRD(t *testing.T, c *converge, ax apiextensionsclientset.Interface, crd *apiextensionsv1.CustomResourceDefinition) {
	cctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	crds := ax.ApiextensionsV1().CustomResourceDefinitions()
	if err := deleteCRDObject(cctx, c, crd.Name); apierrors.IsNotFound(err) {
		return
	} else if err != nil {
		t.Logf("cleanup: delete CRD %s: %v", crd.Name, err)
		return
	}
	dyn, err := dynamic.NewForConfig(c.cfg)
	if err != nil {
		t.Logf("cleanup: %v", err)
		return
	}
	gvr := schema.GroupVersionResource{Group: crd.Spec.Group, Version: crd.Spec.Versions[0].Name, Resource: crd.Spec.Names.Plural}
	for {
		if _, err := crds.Get(cctx, crd.Name, metav1.GetOptions{}); apierrors.IsNotFound(err) {
			return
		}
		if l, err := dyn.Resource(gvr).List(cctx, metav1.ListOptions{}); err == nil {
			for _, o := range l.Items {
				if len(o.GetFinalizers()) > 0 {
					_, _ = dyn.Resource(gvr).Namespace(o.GetNamespace()).Patch(cctx, o.GetName(), types.MergePatchType,
						[]byte(`{"metadata":{"finalizers":null}}`), metav1.PatchOptions{})
				}
			}
		}
		select {
		case <-cctx.Done():
			t.Logf("cleanup: CRD %s still there after 30s", crd.Name)
			return
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// deleteCRDObject deletes the CRD name with the apiextensions clientset,
// whose DeleteOptions are at apiextensions.k8s.io/v1, in protobuf.
func deleteCRDObject(ctx context.Context, c *converge, name string) error {
	ax, err := apiextensionsclientset.NewForConfig(c.cfg)
	if err != nil {
		return err
	}
	return ax.ApiextensionsV1().CustomResourceDefinitions().Delete(ctx, name, metav1.DeleteOptions{})
}

// deleteCRD deletes the CRD and waits until it is NotFound; its custom
// resources are then not served: listing them is NotFound too.
func deleteCRD(t *testing.T, c *converge, ax apiextensionsclientset.Interface, name string, gvr schema.GroupVersionResource) {
	t.Helper()
	if err := deleteCRDObject(ctx(t), c, name); err != nil {
		t.Fatal(err)
	}
	waitCRDGone(t, ax, name)
	dyn, err := dynamic.NewForConfig(c.cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := dyn.Resource(gvr).Namespace("default").List(ctx(t), metav1.ListOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("listing %s after its CRD's deletion: %v, want 404 NotFound", gvr.Resource, err)
	}
}

func waitCRDGone(t *testing.T, ax apiextensionsclientset.Interface, name string) {
	t.Helper()
	eventually(t, "CRD "+name+" to be NotFound", func() bool {
		_, err := ax.ApiextensionsV1().CustomResourceDefinitions().Get(context.Background(), name, metav1.GetOptions{})
		return apierrors.IsNotFound(err)
	})
}

func crdCondition(crd *apiextensionsv1.CustomResourceDefinition, typ apiextensionsv1.CustomResourceDefinitionConditionType) apiextensionsv1.ConditionStatus {
	for _, cond := range crd.Status.Conditions {
		if cond.Type == typ {
			return cond.Status
		}
	}
	return ""
}

// widgetObject is a Widget as a dynamic client writes it.
func widgetObject(name string, labels map[string]string, spec map[string]any) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "example.com/v1",
		"kind":       "Widget",
		"metadata":   map[string]any{"name": name, "namespace": "default"},
		"spec":       spec,
	}}
	u.SetLabels(labels)
	return u
}

func nestedInt(t *testing.T, u *unstructured.Unstructured, fields ...string) int64 {
	t.Helper()
	v, found, err := unstructured.NestedInt64(u.Object, fields...)
	if err != nil || !found {
		t.Fatalf("%s: %v missing (%v) in %v", u.GetName(), fields, err, u.Object)
	}
	return v
}

func nestedString(u *unstructured.Unstructured, fields ...string) string {
	v, _, _ := unstructured.NestedString(u.Object, fields...)
	return v
}

func names(l *unstructured.UnstructuredList) []string {
	var out []string
	for _, o := range l.Items {
		out = append(out, o.GetName())
	}
	sort.Strings(out)
	return out
}

// TestCustomResourcesWithDynamicClient: the example's CRD installed with
// the apiextensions clientset is found by discovery and a RESTMapper, and
// client-go's dynamic client uses its Widgets end to end: defaults,
// label selectors, pagination, optimistic concurrency, the status
// subresource, a watch, server-side apply, validation, the other served
// version, and the CRD's deletion taking its Widgets before it goes.
func TestCustomResourcesWithDynamicClient(t *testing.T) {
	c := start(t)
	ax, crd := installCRD(t, c, widgetCRD(t))
	if crdCondition(crd, apiextensionsv1.NamesAccepted) != apiextensionsv1.ConditionTrue ||
		crd.Status.AcceptedNames.Plural != "widgets" || crd.Status.AcceptedNames.Kind != "Widget" ||
		!slices.Equal(crd.Status.StoredVersions, []string{"v1"}) {
		t.Fatalf("established CRD's status: %+v", crd.Status)
	}

	// Discovery: widgets in example.com/v1 (the preferred version), with
	// its short name and status subresource; a RESTMapper maps the kind.
	dc, err := discovery.NewDiscoveryClientForConfig(c.cfg)
	if err != nil {
		t.Fatal(err)
	}
	preferred, err := dc.ServerPreferredResources()
	if err != nil {
		t.Fatal(err)
	}
	var found *metav1.APIResource
	for _, l := range preferred {
		if l.GroupVersion != "example.com/v1" {
			continue
		}
		for i := range l.APIResources {
			if l.APIResources[i].Name == "widgets" {
				found = &l.APIResources[i]
			}
		}
	}
	if found == nil || found.Kind != "Widget" || !found.Namespaced || !slices.Contains(found.ShortNames, "wd") ||
		!hasVerbs(found.Verbs, "create", "get", "list", "watch", "update", "patch", "delete", "deletecollection") {
		t.Fatalf("preferred resources: widgets in example.com/v1 is %+v", found)
	}
	for _, gv := range []string{"example.com/v1", "example.com/v1beta1"} {
		rl, err := dc.ServerResourcesForGroupVersion(gv)
		if err != nil {
			t.Fatal(err)
		}
		var rs []string
		for _, r := range rl.APIResources {
			rs = append(rs, r.Name)
		}
		if !slices.Contains(rs, "widgets") || !slices.Contains(rs, "widgets/status") {
			t.Fatalf("%s resources: %v", gv, rs)
		}
	}
	mapper := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(dc))
	m, err := mapper.RESTMapping(schema.GroupKind{Group: "example.com", Kind: "Widget"})
	if err != nil {
		t.Fatal(err)
	}
	if m.Resource != widgetsV1 || m.Scope.Name() != meta.RESTScopeNameNamespace {
		t.Fatalf("RESTMapping of Widget: %v %s", m.Resource, m.Scope.Name())
	}
	if gvr, err := mapper.ResourceFor(schema.GroupVersionResource{Resource: "widget"}); err != nil || gvr != widgetsV1 {
		t.Fatalf("ResourceFor widget: %v %v", gvr, err)
	}

	dyn, err := dynamic.NewForConfig(c.cfg)
	if err != nil {
		t.Fatal(err)
	}
	ws := dyn.Resource(m.Resource).Namespace("default")

	// Create: the schema's defaults are applied.
	created, err := ws.Create(ctx(t), widgetObject("w1", map[string]string{"app": "a"}, map[string]any{"image": "nginx:1.27", "replicas": int64(2)}), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if created.GetUID() == "" || created.GetGeneration() != 1 || created.GetResourceVersion() == "" {
		t.Fatalf("created metadata: uid %q generation %d rv %q", created.GetUID(), created.GetGeneration(), created.GetResourceVersion())
	}
	w1, err := ws.Get(ctx(t), "w1", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if nestedString(w1, "spec", "size") != "medium" || nestedInt(t, w1, "spec", "replicas") != 2 || w1.GetKind() != "Widget" || w1.GetAPIVersion() != "example.com/v1" {
		t.Fatalf("got back: %v", w1.Object)
	}
	if d, err := ws.Create(ctx(t), widgetObject("w2", map[string]string{"app": "b"}, map[string]any{"image": "busybox"}), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	} else if nestedInt(t, d, "spec", "replicas") != 1 || nestedString(d, "spec", "size") != "medium" {
		t.Fatalf("defaults of w2: %v", d.Object["spec"])
	}
	if _, err := ws.Create(ctx(t), widgetObject("w3", map[string]string{"app": "a"}, map[string]any{"image": "busybox"}), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	// List with a label selector, and in pages of one.
	l, err := ws.List(ctx(t), metav1.ListOptions{LabelSelector: "app=a"})
	if err != nil {
		t.Fatal(err)
	}
	if got := names(l); !slices.Equal(got, []string{"w1", "w3"}) || l.GetKind() != "WidgetList" {
		t.Fatalf("app=a: %v (kind %q)", got, l.GetKind())
	}
	var paged []string
	opts := metav1.ListOptions{Limit: 1}
	for pages := 1; ; pages++ {
		page, err := ws.List(ctx(t), opts)
		if err != nil {
			t.Fatal(err)
		}
		if len(page.Items) != 1 {
			t.Fatalf("page %d has %d items", pages, len(page.Items))
		}
		paged = append(paged, page.Items[0].GetName())
		if page.GetContinue() == "" {
			break
		}
		if pages > 3 {
			t.Fatalf("more than 3 pages: %v", paged)
		}
		opts.Continue = page.GetContinue()
	}
	if !slices.Equal(paged, []string{"w1", "w2", "w3"}) {
		t.Fatalf("paged list: %v", paged)
	}

	// Update the spec; an update at a stale resourceVersion is 409.
	stale := w1.DeepCopy()
	if err := unstructured.SetNestedField(w1.Object, int64(3), "spec", "replicas"); err != nil {
		t.Fatal(err)
	}
	w1, err = ws.Update(ctx(t), w1, metav1.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if nestedInt(t, w1, "spec", "replicas") != 3 || w1.GetGeneration() != 2 {
		t.Fatalf("after the update: generation %d spec %v", w1.GetGeneration(), w1.Object["spec"])
	}
	_ = unstructured.SetNestedField(stale.Object, int64(4), "spec", "replicas")
	if _, err := ws.Update(ctx(t), stale, metav1.UpdateOptions{}); !apierrors.IsConflict(err) {
		t.Fatalf("update at a stale resourceVersion: %v, want 409 Conflict", err)
	}

	// Status through the status subresource (which ignores the spec);
	// the main resource ignores the status.
	st := w1.DeepCopy()
	_ = unstructured.SetNestedField(st.Object, int64(3), "status", "readyReplicas")
	_ = unstructured.SetNestedField(st.Object, int64(5), "spec", "replicas")
	w1, err = ws.UpdateStatus(ctx(t), st, metav1.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if nestedInt(t, w1, "status", "readyReplicas") != 3 || nestedInt(t, w1, "spec", "replicas") != 3 || w1.GetGeneration() != 2 {
		t.Fatalf("after UpdateStatus: generation %d %v", w1.GetGeneration(), w1.Object)
	}
	withStatus := w1.DeepCopy()
	_ = unstructured.SetNestedField(withStatus.Object, int64(1), "status", "readyReplicas")
	_ = unstructured.SetNestedField(withStatus.Object, "large", "spec", "size")
	w1, err = ws.Update(ctx(t), withStatus, metav1.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if nestedInt(t, w1, "status", "readyReplicas") != 3 || nestedString(w1, "spec", "size") != "large" || w1.GetGeneration() != 3 {
		t.Fatalf("a main-resource update of the status: generation %d %v", w1.GetGeneration(), w1.Object)
	}

	// A watch from a list's resourceVersion sees the next change.
	l, err = ws.List(ctx(t), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w, err := ws.Watch(ctx(t), metav1.ListOptions{ResourceVersion: l.GetResourceVersion()})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	if _, err := ws.Patch(ctx(t), "w1", types.MergePatchType, []byte(`{"spec":{"replicas":4}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	select {
	case ev, ok := <-w.ResultChan():
		if !ok {
			t.Fatal("the watch closed before the change")
		}
		if ev.Type == watch.Error {
			t.Fatalf("watch error: %v", apierrors.FromObject(ev.Object))
		}
		u, isU := ev.Object.(*unstructured.Unstructured)
		if !isU {
			t.Fatalf("watch event %s of %T", ev.Type, ev.Object)
		}
		if ev.Type != watch.Modified || u.GetName() != "w1" {
			t.Fatalf("first event after the list: %s %s, want MODIFIED w1", ev.Type, u.GetName())
		}
		if nestedInt(t, u, "spec", "replicas") != 4 || u.GetKind() != "Widget" {
			t.Fatalf("MODIFIED event: %v", u.Object)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("no MODIFIED event after 30s")
	}
	w.Stop()

	// Server-side apply: alice creates and owns spec.replicas; bob's
	// apply of another value is 409 Conflict; bob's forced apply takes
	// the field over.
	applied, err := ws.Apply(ctx(t), "applied", widgetObject("applied", nil, map[string]any{"image": "nginx:1.27", "replicas": int64(2)}),
		metav1.ApplyOptions{FieldManager: "alice"})
	if err != nil {
		t.Fatal(err)
	}
	if nestedInt(t, applied, "spec", "replicas") != 2 || nestedString(applied, "spec", "size") != "medium" {
		t.Fatalf("applied: %v", applied.Object["spec"])
	}
	bob := widgetObject("applied", nil, map[string]any{"replicas": int64(4)})
	if _, err := ws.Apply(ctx(t), "applied", bob, metav1.ApplyOptions{FieldManager: "bob"}); !apierrors.IsConflict(err) {
		t.Fatalf("bob's apply over alice's replicas: %v, want 409 Conflict", err)
	}
	applied, err = ws.Apply(ctx(t), "applied", bob, metav1.ApplyOptions{FieldManager: "bob", Force: true})
	if err != nil {
		t.Fatal(err)
	}
	if nestedInt(t, applied, "spec", "replicas") != 4 || nestedString(applied, "spec", "image") != "nginx:1.27" {
		t.Fatalf("after bob's forced apply: %v", applied.Object["spec"])
	}
	managers := map[string]string{}
	for _, mf := range applied.GetManagedFields() {
		if mf.FieldsV1 != nil {
			managers[mf.Manager] = string(mf.FieldsV1.Raw)
		}
	}
	if !strings.Contains(managers["bob"], `"f:replicas"`) || strings.Contains(managers["alice"], `"f:replicas"`) || !strings.Contains(managers["alice"], `"f:image"`) {
		t.Fatalf("managed fields after the forced apply: %v", managers)
	}

	// An invalid object is refused 422 with the field's path.
	_, err = ws.Create(ctx(t), widgetObject("bad", nil, map[string]any{"image": "nginx", "replicas": int64(11)}), metav1.CreateOptions{})
	if !apierrors.IsInvalid(err) {
		t.Fatalf("replicas 11: %v, want 422 Invalid", err)
	}
	var se *apierrors.StatusError
	if !errors.As(err, &se) || se.ErrStatus.Details == nil ||
		!slices.ContainsFunc(se.ErrStatus.Details.Causes, func(c metav1.StatusCause) bool { return c.Field == "spec.replicas" }) {
		t.Fatalf("replicas 11: no cause for spec.replicas in %+v", err)
	}
	if _, err := ws.Get(ctx(t), "bad", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("the invalid widget: %v, want NotFound", err)
	}

	// The other served version reads the same object at its apiVersion.
	beta, err := dyn.Resource(widgetsV1beta1).Namespace("default").Get(ctx(t), "w1", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if beta.GetAPIVersion() != "example.com/v1beta1" || beta.GetUID() != w1.GetUID() || nestedInt(t, beta, "spec", "replicas") != 4 {
		t.Fatalf("w1 at v1beta1: %v", beta.Object)
	}

	// Delete.
	if err := ws.Delete(ctx(t), "w1", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := ws.Get(ctx(t), "w1", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("w1 after its deletion: %v, want NotFound", err)
	}

	// Deleting the CRD deletes its Widgets first: one held by a finalizer
	// of the test's keeps the CRD (Terminating) until it is released.
	if _, err := ws.Create(ctx(t), func() *unstructured.Unstructured {
		u := widgetObject("held", nil, map[string]any{"image": "busybox"})
		u.SetFinalizers([]string{holdFinalizer})
		return u
	}(), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	crds := ax.ApiextensionsV1().CustomResourceDefinitions()
	if err := deleteCRDObject(ctx(t), c, widgetCRDName); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the CRD's other Widgets to go and held to be deleting", func() bool {
		l, err := ws.List(context.Background(), metav1.ListOptions{})
		return err == nil && len(l.Items) == 1 && l.Items[0].GetName() == "held" && l.Items[0].GetDeletionTimestamp() != nil
	})
	time.Sleep(time.Second) // the CRD controllers have had time to finish, were they not waiting
	crd, err = crds.Get(ctx(t), widgetCRDName, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("the CRD while a Widget is held: %v", err)
	}
	if crd.DeletionTimestamp == nil || crdCondition(crd, apiextensionsv1.Terminating) != apiextensionsv1.ConditionTrue ||
		!slices.Contains(crd.Finalizers, "customresourcecleanup.apiextensions.k8s.io") {
		t.Fatalf("the CRD while a Widget is held: deletionTimestamp %v finalizers %v status %+v", crd.DeletionTimestamp, crd.Finalizers, crd.Status)
	}
	if _, err := ws.Patch(ctx(t), "held", types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	waitCRDGone(t, ax, widgetCRDName)
	if _, err := ws.List(ctx(t), metav1.ListOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("listing widgets after the CRD's deletion: %v, want 404 NotFound", err)
	}
	if _, err := dc.ServerResourcesForGroupVersion("example.com/v1"); !apierrors.IsNotFound(err) {
		t.Fatalf("discovery of example.com/v1 after the CRD's deletion: %v, want 404 NotFound", err)
	}
}

// Widget is the example's custom resource as a Go type, as kubebuilder
// writes one (DeepCopy by hand here, not generated).
type Widget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              WidgetSpec   `json:"spec,omitempty"`
	Status            WidgetStatus `json:"status,omitempty"`
}

type WidgetSpec struct {
	Image    string `json:"image"`
	Replicas int64  `json:"replicas"`
	Size     string `json:"size,omitempty"`
}

type WidgetStatus struct {
	ReadyReplicas int64 `json:"readyReplicas,omitempty"`
}

type WidgetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Widget `json:"items"`
}

func (w *Widget) DeepCopyInto(out *Widget) {
	*out = *w // TypeMeta, Spec and Status hold values only
	w.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
}

func (w *Widget) DeepCopy() *Widget {
	if w == nil {
		return nil
	}
	out := new(Widget)
	w.DeepCopyInto(out)
	return out
}

func (w *Widget) DeepCopyObject() runtime.Object { return w.DeepCopy() }

func (l *WidgetList) DeepCopyInto(out *WidgetList) {
	*out = *l
	l.ListMeta.DeepCopyInto(&out.ListMeta)
	if l.Items != nil {
		out.Items = make([]Widget, len(l.Items))
		for i := range l.Items {
			l.Items[i].DeepCopyInto(&out.Items[i])
		}
	}
}

func (l *WidgetList) DeepCopy() *WidgetList {
	if l == nil {
		return nil
	}
	out := new(WidgetList)
	l.DeepCopyInto(out)
	return out
}

func (l *WidgetList) DeepCopyObject() runtime.Object { return l.DeepCopy() }

// widgetSchemeBuilder registers Widget and WidgetList in example.com/v1,
// as kubebuilder's groupversion_info.go does.
var widgetSchemeBuilder = (&crscheme.Builder{GroupVersion: schema.GroupVersion{Group: "example.com", Version: "v1"}}).
	Register(&Widget{}, &WidgetList{})

func widgetScheme(t *testing.T) *runtime.Scheme {
	t.Helper()
	s := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	if err := widgetSchemeBuilder.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	return s
}

// readiness makes a Widget's status.readyReplicas its spec.replicas,
// reading through the manager's cached client: a stale read makes the
// status update conflict, and the request is retried.
type readiness struct {
	c      client.Client
	passes atomic.Int32
}

func (r *readiness) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	r.passes.Add(1)
	var w Widget
	if err := r.c.Get(ctx, req.NamespacedName, &w); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	if w.Status.ReadyReplicas == w.Spec.Replicas {
		return reconcile.Result{}, nil
	}
	w.Status.ReadyReplicas = w.Spec.Replicas
	return reconcile.Result{}, r.c.Status().Update(ctx, &w)
}

// TestCustomResourcesWithControllerRuntime: controller-runtime's typed
// client, on Go types registered in a scheme, creates, reads, lists,
// updates, patches and deletes Widgets and writes their status; a
// manager with default settings syncs its cache on Widgets and its
// reconciler sees its own status writes.
func TestCustomResourcesWithControllerRuntime(t *testing.T) {
	c := start(t)
	ax, _ := installCRD(t, c, widgetCRD(t))
	s := widgetScheme(t)
	cl, err := client.New(c.cfg, client.Options{Scheme: s})
	if err != nil {
		t.Fatal(err)
	}
	key := types.NamespacedName{Namespace: "default", Name: "typed"}

	// Create: the object is filled in from the answer, defaults included.
	w := &Widget{ObjectMeta: metav1.ObjectMeta{Name: key.Name, Namespace: key.Namespace, Labels: map[string]string{"app": "typed"}},
		Spec: WidgetSpec{Image: "nginx:1.27", Replicas: 2}}
	if err := cl.Create(ctx(t), w); err != nil {
		t.Fatal(err)
	}
	if w.UID == "" || w.Generation != 1 || w.Spec.Size != "medium" {
		t.Fatalf("created: %+v", w)
	}
	var got Widget
	if err := cl.Get(ctx(t), key, &got); err != nil {
		t.Fatal(err)
	}
	if got.UID != w.UID || got.Spec != (WidgetSpec{Image: "nginx:1.27", Replicas: 2, Size: "medium"}) {
		t.Fatalf("got: %+v", got)
	}
	var list WidgetList
	if err := cl.List(ctx(t), &list, client.InNamespace("default"), client.MatchingLabels{"app": "typed"}); err != nil {
		t.Fatal(err)
	}
	if len(list.Items) != 1 || list.Items[0].Name != key.Name || list.ResourceVersion == "" {
		t.Fatalf("list: %+v", list)
	}

	// Update the spec, then the status through the status subresource.
	got.Spec.Replicas = 3
	if err := cl.Update(ctx(t), &got); err != nil {
		t.Fatal(err)
	}
	if got.Generation != 2 || got.Spec.Replicas != 3 {
		t.Fatalf("updated: generation %d spec %+v", got.Generation, got.Spec)
	}
	got.Status.ReadyReplicas = 3
	if err := cl.Status().Update(ctx(t), &got); err != nil {
		t.Fatal(err)
	}
	if got.Status.ReadyReplicas != 3 || got.Generation != 2 {
		t.Fatalf("status updated: generation %d status %+v", got.Generation, got.Status)
	}
	// A merge patch computed from the object as read.
	before := got.DeepCopy()
	got.Spec.Size = "large"
	got.Spec.Replicas = 7
	if err := cl.Patch(ctx(t), &got, client.MergeFrom(before)); err != nil {
		t.Fatal(err)
	}
	if err := cl.Get(ctx(t), key, &got); err != nil {
		t.Fatal(err)
	}
	if got.Spec != (WidgetSpec{Image: "nginx:1.27", Replicas: 7, Size: "large"}) || got.Status.ReadyReplicas != 3 || got.Generation != 3 {
		t.Fatalf("patched: generation %d %+v %+v", got.Generation, got.Spec, got.Status)
	}
	// The CRD's CEL rule, through the typed client: 422.
	got.Spec.Size = "small"
	if err := cl.Update(ctx(t), &got); !apierrors.IsInvalid(err) {
		t.Fatalf("7 replicas of size small: %v, want 422 Invalid", err)
	}
	// Delete. controller-runtime's typed client sends its DeleteOptions at
	// the Widget's group version (example.com/v1), as kube-apiserver
	// accepts for every group.
	if err := cl.Delete(ctx(t), &got); err != nil {
		t.Fatalf("controller-runtime's typed Delete of a Widget: %v, want 200 as kube-apiserver answers", err)
	}
	if err := cl.Get(ctx(t), key, &got); !apierrors.IsNotFound(err) {
		t.Fatalf("after its deletion: %v, want NotFound", err)
	}

	// A manager with default settings: its cache's informer on Widgets
	// (a streaming list) syncs, and the reconciler writes the status.
	mgr, err := ctrl.NewManager(c.cfg, ctrl.Options{
		Scheme:                 s,
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
	})
	if err != nil {
		t.Fatal(err)
	}
	r := &readiness{c: mgr.GetClient()}
	// (Controller names are checked unique in the process: -count=N runs
	// this test N times.)
	if err := ctrl.NewControllerManagedBy(mgr).For(&Widget{}).
		WithOptions(controller.Options{SkipNameValidation: ptr.To(true)}).Complete(r); err != nil {
		t.Fatal(err)
	}
	streamed := c.watchLists.Load()
	stop := runManager(t, mgr)
	syncCtx, syncCancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer syncCancel()
	inf, err := mgr.GetCache().GetInformer(syncCtx, &Widget{})
	if err != nil {
		t.Fatal(err)
	}
	if !toolscache.WaitForCacheSync(syncCtx.Done(), inf.HasSynced) {
		t.Fatal("the manager's informer on Widgets did not sync in 30s")
	}
	// Synced by streaming, not by a LIST after a refused watch.
	if c.watchLists.Load() == streamed {
		t.Fatal("the manager's cache did not stream its list of Widgets")
	}

	ready := func(want int64) {
		t.Helper()
		eventually(t, fmt.Sprintf("status.readyReplicas %d", want), func() bool {
			var w Widget
			err := mgr.GetAPIReader().Get(context.Background(), types.NamespacedName{Namespace: "default", Name: "managed"}, &w)
			return err == nil && w.Spec.Replicas == want && w.Status.ReadyReplicas == want
		})
	}
	managed := &Widget{ObjectMeta: metav1.ObjectMeta{Name: "managed", Namespace: "default"}, Spec: WidgetSpec{Image: "busybox", Replicas: 2}}
	if err := cl.Create(ctx(t), managed); err != nil {
		t.Fatal(err)
	}
	ready(2)
	passes := r.passes.Load()
	if err := cl.Patch(ctx(t), managed, client.RawPatch(types.MergePatchType, []byte(`{"spec":{"replicas":4}}`))); err != nil {
		t.Fatal(err)
	}
	ready(4)
	if r.passes.Load() == passes {
		t.Fatal("no reconcile after the spec change")
	}
	// The cached client lists what the informer holds.
	var cached WidgetList
	if err := mgr.GetClient().List(ctx(t), &cached, client.InNamespace("default")); err != nil {
		t.Fatal(err)
	}
	if len(cached.Items) != 1 || cached.Items[0].Name != "managed" {
		t.Fatalf("cached list: %+v", cached.Items)
	}
	stop()

	// The CRD's deletion takes the remaining Widget first.
	deleteCRD(t, c, ax, widgetCRDName, widgetsV1)
}

// TestCRDClientsetWithDefaults: the apiextensions clientset as users
// build it, whose default content type is protobuf and whose
// DeleteOptions are at apiextensions.k8s.io/v1, creates, updates and
// deletes a CRD, as against kube-apiserver.
func TestCRDClientsetWithDefaults(t *testing.T) {
	c := start(t)
	ax, err := apiextensionsclientset.NewForConfig(c.cfg)
	if err != nil {
		t.Fatal(err)
	}
	crds := ax.ApiextensionsV1().CustomResourceDefinitions()
	jsonCRDs := jsonClientset(t, c).ApiextensionsV1().CustomResourceDefinitions()
	crd := widgetCRD(t)

	// POST, protobuf body.
	if _, err := crds.Create(ctx(t), crd, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating a CRD sent as protobuf: %v, want 201 as kube-apiserver answers", err)
	}
	t.Cleanup(func() { removeCRD(t, c, ax, crd) })
	got := waitEstablished(t, ax, crd.Name)

	// PUT, protobuf body.
	got.Labels = map[string]string{"e2e": "updated"}
	if updated, err := crds.Update(ctx(t), got, metav1.UpdateOptions{}); err != nil {
		t.Errorf("updating a CRD sent as protobuf: %v, want 200 as kube-apiserver answers", err)
	} else if updated.Labels["e2e"] != "updated" {
		t.Errorf("updated labels: %v", updated.Labels)
	}

	// DELETE with a protobuf DeleteOptions at apiextensions.k8s.io/v1, as
	// a dry run.
	if err := crds.Delete(ctx(t), crd.Name, metav1.DeleteOptions{DryRun: []string{metav1.DryRunAll}}); err != nil {
		t.Errorf("a dry-run delete of a CRD with protobuf DeleteOptions: %v, want 200 as kube-apiserver answers", err)
	}
	if now, err := crds.Get(ctx(t), crd.Name, metav1.GetOptions{}); err != nil {
		t.Fatal(err)
	} else if now.DeletionTimestamp != nil {
		t.Fatalf("a dry-run delete deleted the CRD at %v", now.DeletionTimestamp)
	}

	// DELETE with a JSON DeleteOptions at apiextensions.k8s.io/v1.
	if err := jsonCRDs.Delete(ctx(t), crd.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatalf("deleting a CRD with JSON DeleteOptions at apiextensions.k8s.io/v1: %v, want 200 as kube-apiserver answers", err)
	}
	waitCRDGone(t, ax, crd.Name)
}

// TestCustomResourceCreateWhileCRDTerminating: while a deleted CRD waits
// for its custom resources to go, kube-apiserver refuses to create new
// ones, by POST or by server-side apply, and still lets the remaining
// ones be changed. The refusal is 403 Forbidden, `widgets.example.com
// "late" is forbidden: create not allowed while custom resource
// definition is terminating`: apiextensions-apiserver v0.37.2's
// customresource_handler.go wraps create's and patch's admission in
// forbidCreateAdmission (older releases answered 405 MethodNotAllowed).
func TestCustomResourceCreateWhileCRDTerminating(t *testing.T) {
	c := start(t)
	ax, _ := installCRD(t, c, widgetCRD(t))
	dyn, err := dynamic.NewForConfig(c.cfg)
	if err != nil {
		t.Fatal(err)
	}
	ws := dyn.Resource(widgetsV1).Namespace("default")
	held := widgetObject("held", nil, map[string]any{"image": "busybox"})
	held.SetFinalizers([]string{holdFinalizer})
	if _, err := ws.Create(ctx(t), held, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := deleteCRDObject(ctx(t), c, widgetCRDName); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the CRD to be Terminating", func() bool {
		crd, err := ax.ApiextensionsV1().CustomResourceDefinitions().Get(context.Background(), widgetCRDName, metav1.GetOptions{})
		return err == nil && crdCondition(crd, apiextensionsv1.Terminating) == apiextensionsv1.ConditionTrue
	})
	const refusal = "create not allowed while custom resource definition is terminating"
	_, err = ws.Create(ctx(t), widgetObject("late", nil, map[string]any{"image": "busybox"}), metav1.CreateOptions{})
	if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), refusal) {
		t.Errorf("creating a Widget while its CRD is terminating: %d %s %v, want 403 Forbidden %q as kube-apiserver answers", codeOf(err), apierrors.ReasonForError(err), err, refusal)
	}
	_, err = ws.Apply(ctx(t), "late-applied", widgetObject("late-applied", nil, map[string]any{"image": "busybox"}), metav1.ApplyOptions{FieldManager: "e2e"})
	if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), refusal) {
		t.Errorf("server-side apply creating a Widget while its CRD is terminating: %d %s %v, want 403 Forbidden %q as kube-apiserver answers", codeOf(err), apierrors.ReasonForError(err), err, refusal)
	}
	// The held Widget can still be changed: released, it goes, and the
	// CRD with it.
	if _, err := ws.Patch(ctx(t), "held", types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	waitCRDGone(t, ax, widgetCRDName)
}
