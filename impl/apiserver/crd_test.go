package apiserver

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/impl/store"
)

// widgetCRD is the worked example's CRD, as JSON.
func widgetCRD(t *testing.T) string {
	t.Helper()
	y, err := os.ReadFile("../../examples/crd/bases/example.com_widgets.yaml")
	if err != nil {
		t.Fatal(err)
	}
	j, err := yaml.YAMLToJSON(y)
	if err != nil {
		t.Fatal(err)
	}
	return string(j)
}

// newCRDEnv is a server whose registry runs the CRD controllers, with the
// Widget CRD installed and established.
func newCRDEnv(t *testing.T) *testEnv {
	t.Helper()
	e := newEnv(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); e.reg.RunCRDs(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	e.must(http.StatusCreated, "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", widgetCRD(t))
	e.waitFor("the Widget CRD to be established", func() bool {
		return crdCondition(t, e, "widgets.example.com", "Established") == "True"
	}, func() string { return string(e.do("GET", crdsPath+"/widgets.example.com", "").body) })
	return e
}

// waitFor polls cond for up to 30 s: under the race detector, on a
// machine busy with other packages' tests, a CRD's cleanup once took more
// than 10. What each of state returns is printed when it times out.
func (e *testEnv) waitFor(what string, cond func() bool, state ...func() string) {
	e.t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if cond() {
			return
		}
	}
	var b strings.Builder
	for _, s := range state {
		b.WriteString("\n" + s())
	}
	e.t.Fatalf("timed out waiting for %s%s", what, b.String())
}

// crdCondition is the status of the CRD's condition typ ("" if absent or
// the CRD is gone).
func crdCondition(t *testing.T, e *testEnv, name, typ string) string {
	r := e.do("GET", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/"+name, "")
	if r.code != http.StatusOK {
		return ""
	}
	var c api.CustomResourceDefinition
	r.into(t, &c)
	for _, cond := range c.Status.Conditions {
		if string(cond.Type) == typ {
			return string(cond.Status)
		}
	}
	return ""
}

const widgets = "/apis/example.com/v1/namespaces/default/widgets"

func widgetJSON(name, spec string) string {
	return `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"` + name + `"},"spec":` + spec + `}`
}

func TestCustomResourceLifecycleOverHTTP(t *testing.T) {
	e := newCRDEnv(t)

	// Discovery lists the resource at both served versions, v1 preferred.
	var group struct {
		Versions         []struct{ Version string }
		PreferredVersion struct{ Version string }
	}
	e.must(http.StatusOK, "GET", "/apis/example.com", "").into(t, &group)
	if len(group.Versions) != 2 || group.PreferredVersion.Version != "v1" {
		t.Fatalf("group example.com: %+v", group)
	}
	if b := e.must(http.StatusOK, "GET", "/apis/example.com/v1beta1", "").body; !strings.Contains(string(b), `"name":"widgets"`) {
		t.Fatalf("v1beta1 resources: %s", b)
	}

	// Create: defaults applied, unknown fields pruned, status dropped.
	var w api.CustomObject
	e.must(http.StatusCreated, "POST", widgets,
		widgetJSON("a", `{"image":"nginx:1.27","unknown":1,"config":{"kept":true}}`)).into(t, &w)
	spec := w.Content["spec"].(map[string]any)
	if spec["replicas"] != int64(1) || spec["size"] != "medium" || spec["unknown"] != nil || spec["config"] == nil {
		t.Fatalf("created spec: %v", spec)
	}
	if w.Generation != 1 || w.UID == "" {
		t.Fatalf("created metadata: %+v", w.ObjectMeta)
	}
	// fieldValidation: Strict refuses unknown fields, the default warns.
	r := e.must(http.StatusBadRequest, "POST", widgets+"?fieldValidation=Strict", widgetJSON("strict", `{"image":"nginx","unknown":1}`))
	if msg := r.status(t).Message; msg != `Widget in version "v1" cannot be handled as a Widget: strict decoding error: unknown field "spec.unknown"` {
		t.Errorf("strict: %s", msg)
	}
	if r := e.must(http.StatusCreated, "POST", widgets, widgetJSON("warned", `{"image":"nginx","unknown":1}`)); r.hdr.Get("Warning") != `299 - "unknown field \"spec.unknown\""` {
		t.Errorf("warning: %q", r.hdr.Get("Warning"))
	}
	e.must(http.StatusOK, "DELETE", widgets+"/warned", "")

	// Invalid objects are refused with the field path, and nothing is stored.
	for _, c := range []struct{ spec, want string }{
		{`{"image":"nginx","replicas":11}`, "spec.replicas"},
		{`{"image":"nginx","size":"huge"}`, "spec.size"},
		{`{"image":"nginx","replicas":6}`, "more than 5 replicas need size large"},
		{`{"replicas":1}`, "spec.image"},
	} {
		st := e.must(http.StatusUnprocessableEntity, "POST", widgets, widgetJSON("bad", c.spec)).status(t)
		if st.Reason != api.StatusReasonInvalid || !strings.Contains(string(e.do("POST", widgets, widgetJSON("bad", c.spec)).body), c.want) {
			t.Errorf("%s: %+v, want a cause naming %q", c.spec, st, c.want)
		}
	}
	e.must(http.StatusNotFound, "GET", widgets+"/bad", "")

	// A transition rule sees the old object.
	w.Content["spec"].(map[string]any)["image"] = "nginx:2"
	b, _ := json.Marshal(&w)
	if r := e.must(http.StatusUnprocessableEntity, "PUT", widgets+"/a", string(b)); !strings.Contains(string(r.body), "image is immutable") {
		t.Fatalf("image change: %s", r.body)
	}

	// The main resource ignores status; the status subresource writes
	// only status. A spec change bumps the generation.
	e.must(http.StatusOK, "PATCH", widgets+"/a", `{"spec":{"replicas":2},"status":{"readyReplicas":9}}`,
		"Content-Type: application/merge-patch+json").into(t, &w)
	if w.Content["status"] != nil || w.Generation != 2 {
		t.Fatalf("after a main-resource patch: generation %d, status %v", w.Generation, w.Content["status"])
	}
	e.must(http.StatusOK, "PATCH", widgets+"/a/status", `{"spec":{"replicas":4},"status":{"readyReplicas":2}}`,
		"Content-Type: application/merge-patch+json").into(t, &w)
	if st := w.Content["status"].(map[string]any); st["readyReplicas"] != int64(2) || w.Content["spec"].(map[string]any)["replicas"] != int64(2) || w.Generation != 2 {
		t.Fatalf("after a status patch: %+v", w)
	}

	// The scale subresource reads and writes the CRD's replica paths.
	var sc api.Scale
	e.must(http.StatusOK, "GET", widgets+"/a/scale", "").into(t, &sc)
	if sc.Kind != "Scale" || sc.Spec.Replicas != 2 || sc.Name != "a" {
		t.Fatalf("scale: %+v", sc)
	}
	e.must(http.StatusOK, "PATCH", widgets+"/a/scale", `{"spec":{"replicas":5}}`, "Content-Type: application/merge-patch+json")
	e.must(http.StatusOK, "GET", widgets+"/a", "").into(t, &w)
	if w.Content["spec"].(map[string]any)["replicas"] != int64(5) || w.Generation != 3 {
		t.Fatalf("after a scale patch: generation %d, spec %v", w.Generation, w.Content["spec"])
	}
	// The schema still holds through the scale subresource.
	e.must(http.StatusUnprocessableEntity, "PUT", widgets+"/a/scale", `{"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{"name":"a","namespace":"default"},"spec":{"replicas":11}}`)

	// The CRD's selectable field selects.
	e.must(http.StatusCreated, "POST", widgets, widgetJSON("big", `{"image":"nginx","size":"large"}`))
	var sel api.CustomObjectList
	e.must(http.StatusOK, "GET", widgets+"?fieldSelector=spec.size%3Dlarge", "").into(t, &sel)
	if len(sel.Items) != 1 || sel.Items[0].Name != "big" {
		t.Fatalf("fieldSelector spec.size=large: %+v", sel.Items)
	}
	e.must(http.StatusOK, "GET", widgets+"?fieldSelector=spec.size!%3Dlarge", "").into(t, &sel)
	if len(sel.Items) != 1 || sel.Items[0].Name != "a" {
		t.Fatalf("fieldSelector spec.size!=large: %+v", sel.Items)
	}
	e.must(http.StatusBadRequest, "GET", widgets+"?fieldSelector=spec.image%3Dnginx", "")
	e.must(http.StatusOK, "DELETE", widgets+"/big", "")

	// Strategic merge patch is not for custom resources: 415.
	e.must(http.StatusUnsupportedMediaType, "PATCH", widgets+"/a", `{"spec":{"replicas":3}}`,
		"Content-Type: application/strategic-merge-patch+json")

	// The other served version reads the same object at its apiVersion.
	e.must(http.StatusOK, "GET", "/apis/example.com/v1beta1/namespaces/default/widgets/a", "").into(t, &w)
	if w.APIVersion != "example.com/v1beta1" || w.Content["spec"].(map[string]any)["image"] != "nginx:1.27" {
		t.Fatalf("read at v1beta1: %s %v", w.APIVersion, w.Content)
	}
	var l api.CustomObjectList
	e.must(http.StatusOK, "GET", "/apis/example.com/v1beta1/widgets", "").into(t, &l)
	if l.APIVersion != "example.com/v1beta1" || len(l.Items) != 1 || l.Items[0].APIVersion != "example.com/v1beta1" {
		t.Fatalf("list at v1beta1: %+v", l)
	}
	// What is written at v1beta1 is stored at v1.
	e.must(http.StatusCreated, "POST", "/apis/example.com/v1beta1/namespaces/default/widgets",
		`{"apiVersion":"example.com/v1beta1","kind":"Widget","metadata":{"name":"b"},"spec":{"image":"busybox","anything":"goes"}}`)
	e.must(http.StatusOK, "GET", widgets+"/b", "").into(t, &w)
	if w.APIVersion != "example.com/v1" || w.Content["spec"].(map[string]any)["anything"] != "goes" {
		t.Fatalf("v1beta1 object read at v1: %s %v", w.APIVersion, w.Content)
	}

	// Deleting the CRD deletes its custom resources first, then itself;
	// the resource is no longer served.
	e.must(http.StatusOK, "DELETE", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.example.com", "")
	e.waitFor("the CRD to go", func() bool {
		return e.do("GET", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.example.com", "").code == http.StatusNotFound
	})
	e.must(http.StatusNotFound, "GET", widgets, "")
	if left, _, _, err := e.st.List(context.Background(), "widgets", "", store.ListOptions{}); err != nil || len(left) != 0 {
		t.Fatalf("widgets left in the store: %d (%v)", len(left), err)
	}
}

// A cluster-scoped CRD beside a namespaced one: each custom kind is
// served with its own scope, though all share one Go type.
func TestClusterScopedCustomResource(t *testing.T) {
	e := newCRDEnv(t)
	e.must(http.StatusCreated, "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
		"metadata":{"name":"gadgets.test.io"},"spec":{"group":"test.io","scope":"Cluster","names":{"plural":"gadgets","singular":"gadget","kind":"Gadget"},
		"versions":[{"name":"v1alpha1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","properties":{"spec":{"type":"object","properties":{"size":{"type":"integer"}}}}}}}]}}`)
	e.waitFor("the Gadget CRD to be established", func() bool {
		return crdCondition(t, e, "gadgets.test.io", "Established") == "True"
	})
	e.must(http.StatusCreated, "POST", widgets, widgetJSON("w", `{"image":"nginx"}`))
	var g api.CustomObject
	e.must(http.StatusCreated, "POST", "/apis/test.io/v1alpha1/gadgets",
		`{"apiVersion":"test.io/v1alpha1","kind":"Gadget","metadata":{"name":"g1"},"spec":{"size":3}}`).into(t, &g)
	if g.Namespace != "" || g.Content["spec"].(map[string]any)["size"] != int64(3) {
		t.Fatalf("gadget: %+v", g)
	}
	e.must(http.StatusOK, "GET", "/apis/test.io/v1alpha1/gadgets/g1", "")
	e.must(http.StatusNotFound, "GET", "/apis/test.io/v1alpha1/namespaces/default/gadgets/g1", "")
	var l api.CustomObjectList
	e.must(http.StatusOK, "GET", "/apis/test.io/v1alpha1/gadgets", "").into(t, &l)
	if len(l.Items) != 1 || l.Kind != "GadgetList" {
		t.Fatalf("gadgets: %+v", l)
	}
	e.must(http.StatusOK, "GET", widgets+"/w", "") // the namespaced kind is still namespaced
}

// A CRD being deleted waits for its custom resources' finalizers, shows
// Terminating, and refuses new custom resources meanwhile, as upstream.
func TestTerminatingCRDWaitsForFinalizers(t *testing.T) {
	e := newCRDEnv(t)
	e.must(http.StatusCreated, "POST", widgets,
		`{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"held","finalizers":["example.com/hold"]},"spec":{"image":"nginx"}}`)
	e.must(http.StatusOK, "DELETE", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.example.com", "")
	e.waitFor("the CRD to show Terminating", func() bool {
		return crdCondition(t, e, "widgets.example.com", "Terminating") == "True"
	})
	st := e.must(http.StatusForbidden, "POST", widgets, widgetJSON("late", `{"image":"nginx"}`)).status(t)
	if st.Message != `widgets.example.com "late" is forbidden: create not allowed while custom resource definition is terminating` {
		t.Errorf("create while terminating: %q", st.Message)
	}
	e.waitFor("the held widget to be deleted", func() bool {
		var w api.CustomObject
		e.must(http.StatusOK, "GET", widgets+"/held", "").into(t, &w)
		return w.DeletionTimestamp != nil
	})
	time.Sleep(300 * time.Millisecond) // the CRD stays while the finalizer holds
	if crdCondition(t, e, "widgets.example.com", "Terminating") != "True" {
		t.Fatal("the CRD went before its widget")
	}
	e.must(http.StatusOK, "PATCH", widgets+"/held", `{"metadata":{"finalizers":null}}`, "Content-Type: application/merge-patch+json")
	e.waitFor("the CRD to go", func() bool {
		return e.do("GET", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.example.com", "").code == http.StatusNotFound
	})
}

// generateName names a custom resource as it names a built-in.
func TestCustomResourceWithGenerateName(t *testing.T) {
	e := newCRDEnv(t)
	var w api.CustomObject
	e.must(http.StatusCreated, "POST", widgets,
		`{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"generateName":"auto-"},"spec":{"image":"nginx"}}`).into(t, &w)
	if !strings.HasPrefix(w.Name, "auto-") || len(w.Name) <= len("auto-") {
		t.Fatalf("generated name %q", w.Name)
	}
	e.must(http.StatusOK, "GET", widgets+"/"+w.Name, "")
}
