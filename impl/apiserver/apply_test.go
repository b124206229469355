package apiserver

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/impl/registry"
	"github.com/converge-dev/converge/impl/store/storetest"
)

const appliedApp = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: myapp
  labels: {app: myapp}
spec:
  replicas: %REPLICAS%
  selector:
    matchLabels: {app: myapp}
  template:
    metadata:
      labels: {app: myapp}
    spec:
      containers:
        - name: nginx
          image: nginx:1.27
          ports:
            - containerPort: 80
`

func appConfig(replicas string) []byte {
	return []byte(strings.ReplaceAll(appliedApp, "%REPLICAS%", replicas))
}

var deployments = mustInfo("deployments")

func mustInfo(resource string) api.ResourceInfo {
	info, _ := api.LookupResource(resource)
	return info
}

// apply runs applyConfiguration and defaults the result, as storing would.
func apply(t *testing.T, live api.Object, cfg []byte, manager string, force bool) (*api.Deployment, error) {
	t.Helper()
	obj, err := applyConfiguration(deployments, live, cfg, manager, "", force)
	if err != nil {
		return nil, err
	}
	api.Default(obj)
	return obj.(*api.Deployment), nil
}

func fieldsOf(t *testing.T, obj api.Object, manager, operation string) string {
	t.Helper()
	for _, e := range api.Meta(obj).ManagedFields {
		if e.Manager == manager && string(e.Operation) == operation {
			if e.FieldsType != "FieldsV1" || e.APIVersion != "apps/v1" {
				t.Errorf("entry %+v", e)
			}
			return e.FieldsV1.String()
		}
	}
	return ""
}

func TestApplyCreateRecordsManagedFields(t *testing.T) {
	d, err := apply(t, nil, appConfig("3"), "kubectl", false)
	if err != nil {
		t.Fatal(err)
	}
	if *d.Spec.Replicas != 3 || d.Spec.Template.Spec.Containers[0].Image != "nginx:1.27" {
		t.Fatalf("applied object: %+v", d.Spec)
	}
	// An applier owns the members it sent; only an updater's entries
	// name a map itself (".").
	want := `{"f:metadata":{"f:labels":{"f:app":{}}},"f:spec":{"f:replicas":{},"f:selector":{},` +
		`"f:template":{"f:metadata":{"f:labels":{"f:app":{}}},"f:spec":{"f:containers":{"k:{\"name\":\"nginx\"}":{".":{},` +
		`"f:image":{},"f:name":{},"f:ports":{"k:{\"containerPort\":80,\"protocol\":\"TCP\"}":{".":{},"f:containerPort":{}}}}}}}}}`
	if got := fieldsOf(t, d, "kubectl", "Apply"); got != want {
		t.Fatalf("fieldsV1:\n got %s\nwant %s", got, want)
	}
}

func TestApplyUpdateBySameManager(t *testing.T) {
	d, _ := apply(t, nil, appConfig("3"), "kubectl", false)
	d2, err := apply(t, d, appConfig("5"), "kubectl", false)
	if err != nil {
		t.Fatal(err)
	}
	if *d2.Spec.Replicas != 5 || len(d2.ManagedFields) != 1 {
		t.Fatalf("replicas %d, managedFields %+v", *d2.Spec.Replicas, d2.ManagedFields)
	}
}

func TestApplyConflictBetweenManagers(t *testing.T) {
	d, _ := apply(t, nil, appConfig("3"), "alice", false)
	_, err := apply(t, d, appConfig("5"), "bob", false)
	se, ok := err.(*api.StatusError)
	if !ok || se.Status.Code != http.StatusConflict || se.Status.Reason != api.StatusReasonConflict {
		t.Fatalf("want a 409 Conflict, got %v", err)
	}
	// An applier is named without its apiVersion, an updater with it.
	if want := `Apply failed with 1 conflict: conflict with "alice": .spec.replicas`; se.Status.Message != want {
		t.Errorf("message %q, want %q", se.Status.Message, want)
	}
	causes := se.Status.Details.Causes
	if len(causes) != 1 || causes[0].Type != "FieldManagerConflict" || causes[0].Field != ".spec.replicas" ||
		causes[0].Message != `conflict with "alice"` {
		t.Errorf("causes %+v", causes)
	}
	// The same value is no conflict: both own it.
	shared, err := apply(t, d, appConfig("3"), "bob", false)
	if err != nil {
		t.Fatalf("same value: %v", err)
	}
	if !strings.Contains(fieldsOf(t, shared, "alice", "Apply"), "f:replicas") || !strings.Contains(fieldsOf(t, shared, "bob", "Apply"), "f:replicas") {
		t.Errorf("shared ownership lost: %+v", shared.ManagedFields)
	}
}

func TestApplyForceTakesOwnership(t *testing.T) {
	d, _ := apply(t, nil, appConfig("3"), "alice", false)
	d2, err := apply(t, d, appConfig("5"), "bob", true)
	if err != nil {
		t.Fatal(err)
	}
	if *d2.Spec.Replicas != 5 {
		t.Fatalf("replicas %d", *d2.Spec.Replicas)
	}
	if strings.Contains(fieldsOf(t, d2, "alice", "Apply"), "f:replicas") || !strings.Contains(fieldsOf(t, d2, "bob", "Apply"), "f:replicas") {
		t.Errorf("ownership not transferred: %+v", d2.ManagedFields)
	}
	// alice now conflicts in turn.
	if _, err := apply(t, d2, appConfig("3"), "alice", false); !api.IsConflict(err) {
		t.Errorf("alice after force: %v", err)
	}
}

func TestApplyRemovesFieldsNoLongerApplied(t *testing.T) {
	withSidecar := strings.Replace(string(appConfig("3")), "  labels: {app: myapp}\nspec", "  labels: {app: myapp, tier: web}\nspec", 1) +
		"        - name: sidecar\n          image: busybox:1.36\n"
	d, err := apply(t, nil, []byte(withSidecar), "alice", false)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Spec.Template.Spec.Containers) != 2 || d.Labels["tier"] != "web" {
		t.Fatalf("setup: %+v %v", d.Spec.Template.Spec.Containers, d.Labels)
	}
	d2, err := apply(t, d, appConfig("3"), "alice", false)
	if err != nil {
		t.Fatal(err)
	}
	if len(d2.Spec.Template.Spec.Containers) != 1 || d2.Labels["tier"] != "" || d2.Labels["app"] != "myapp" {
		t.Fatalf("omitted fields kept: %+v %v", d2.Spec.Template.Spec.Containers, d2.Labels)
	}
	// A field another manager also owns stays.
	d3, _ := apply(t, d, []byte("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: myapp\n  labels: {tier: web}\n"), "bob", false)
	d4, err := apply(t, d3, appConfig("3"), "alice", false)
	if err != nil {
		t.Fatal(err)
	}
	if d4.Labels["tier"] != "web" {
		t.Errorf("label owned by bob was removed: %v", d4.Labels)
	}
}

func TestRecordUpdateThenApplyConflicts(t *testing.T) {
	d, _ := apply(t, nil, appConfig("3"), "kubectl", false)
	scaled := api.DeepCopy(d)
	*scaled.Spec.Replicas = 7
	scaled.ManagedFields = recordedFields(d, scaled, "kubectl-client-side-apply", "")
	if got := fieldsOf(t, scaled, "kubectl-client-side-apply", "Update"); got != `{"f:spec":{"f:replicas":{}}}` {
		t.Fatalf("update entry %q", got)
	}
	if strings.Contains(fieldsOf(t, scaled, "kubectl", "Apply"), "f:replicas") {
		t.Errorf("the applier still owns a field the update changed")
	}
	// Ownership moved without conflict; re-applying 3 keeps nothing stale
	// and a different value conflicts with the updater.
	_, err := apply(t, scaled, appConfig("4"), "other", false)
	if se, ok := err.(*api.StatusError); !ok || se.Status.Message != `Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using apps/v1: .spec.replicas` {
		t.Fatalf("want conflict with the updater, got %v", err)
	}
}

func TestApplyRejectsBadInput(t *testing.T) {
	for name, c := range map[string]struct {
		cfg, manager string
	}{
		"no manager":    {string(appConfig("3")), ""},
		"unknown field": {"apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: x}\nspec: {replicaz: 1}\n", "m"},
		"wrong kind":    {"apiVersion: v1\nkind: Pod\nmetadata: {name: x}\n", "m"},
		"not yaml":      {"{", "m"},
	} {
		if _, err := applyConfiguration(deployments, nil, []byte(c.cfg), c.manager, "", false); !api.IsBadRequest(err) {
			t.Errorf("%s: want 400, got %v", name, err)
		}
	}
}

func TestServerSideApplyGlue(t *testing.T) {
	reg := registry.New(registry.Config{Store: storetest.Store(t)})
	s, err := New(Config{Registry: reg})
	if err != nil {
		t.Fatal(err)
	}
	path := "/apis/apps/v1/namespaces/default/deployments/myapp"
	rt, err := parseRoute(path)
	if err != nil {
		t.Fatal(err)
	}
	do := func(query string, body []byte) (int, map[string]any) {
		req := httptest.NewRequest(http.MethodPatch, path+query, nil)
		req.Header.Set("Content-Type", applyPatchType)
		rec := httptest.NewRecorder()
		s.serverSideApplyBody(rec, req, rt, body)
		var m map[string]any
		_ = json.Unmarshal(rec.Body.Bytes(), &m)
		return rec.Code, m
	}
	if code, _ := do("?fieldManager=alice", appConfig("3")); code != http.StatusCreated {
		t.Fatalf("create: %d", code)
	}
	if code, _ := do("?fieldManager=alice", appConfig("4")); code != http.StatusOK {
		t.Fatalf("update: %d", code)
	}
	code, st := do("?fieldManager=bob", appConfig("5"))
	if code != http.StatusConflict || st["reason"] != "Conflict" || !strings.Contains(st["message"].(string), `conflict with "alice"`) {
		t.Fatalf("conflict: %d %v", code, st)
	}
	if code, _ := do("?fieldManager=bob&force=true", appConfig("5")); code != http.StatusOK {
		t.Fatalf("force: %d", code)
	}
	if code, _ := do("", appConfig("5")); code != http.StatusBadRequest {
		t.Fatalf("no fieldManager: %d", code)
	}
	got, err := reg.Get(t.Context(), "deployments", "default", "myapp")
	if err != nil {
		t.Fatal(err)
	}
	if d := got.(*api.Deployment); *d.Spec.Replicas != 5 || len(d.ManagedFields) != 2 {
		t.Fatalf("stored: replicas %d managedFields %+v", *d.Spec.Replicas, d.ManagedFields)
	}
}
