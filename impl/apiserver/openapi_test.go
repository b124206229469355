package apiserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/converge-dev/converge/impl/api"
)

func getOpenAPI(t *testing.T, url string) (int, []byte) {
	t.Helper()
	rec := httptest.NewRecorder()
	openAPIHandler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, url, nil))
	return rec.Code, rec.Body.Bytes()
}

type openAPIDocJSON struct {
	OpenAPI    string                    `json:"openapi"`
	Paths      map[string]map[string]any `json:"paths"`
	Components struct {
		Schemas map[string]map[string]any `json:"schemas"`
	} `json:"components"`
}

func loadDoc(t *testing.T, gv string) openAPIDocJSON {
	t.Helper()
	b, err := openAPIDocument(gv)
	if err != nil {
		t.Fatal(err)
	}
	var d openAPIDocJSON
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatal(err)
	}
	return d
}

func TestOpenAPIEndpoints(t *testing.T) {
	code, body := getOpenAPI(t, "/openapi/v3")
	if code != http.StatusOK {
		t.Fatalf("index: %d %s", code, body)
	}
	var index struct {
		Paths map[string]struct {
			ServerRelativeURL string `json:"serverRelativeURL"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(body, &index); err != nil {
		t.Fatal(err)
	}
	var got []string
	for p := range index.Paths {
		got = append(got, p)
	}
	sort.Strings(got)
	if want := "api/v1 apis/apiextensions.k8s.io/v1 apis/apps/v1 apis/autoscaling/v1 apis/autoscaling/v2 apis/batch/v1 apis/coordination.k8s.io/v1 apis/discovery.k8s.io/v1 apis/events.k8s.io/v1 apis/networking.k8s.io/v1 apis/policy/v1 apis/rbac.authorization.k8s.io/v1"; strings.Join(got, " ") != want {
		t.Fatalf("index paths %v, want %s", got, want)
	}
	for p, e := range index.Paths {
		if !strings.HasPrefix(e.ServerRelativeURL, "/openapi/v3/"+p+"?hash=") {
			t.Errorf("%s: serverRelativeURL %q", p, e.ServerRelativeURL)
		}
		code, body := getOpenAPI(t, e.ServerRelativeURL)
		var d openAPIDocJSON
		if code != http.StatusOK || json.Unmarshal(body, &d) != nil || d.OpenAPI != "3.0.0" || len(d.Components.Schemas) == 0 {
			t.Errorf("%s: %d, not an OpenAPI 3.0 document: %.200s", e.ServerRelativeURL, code, body)
		}
	}
	if code, _ := getOpenAPI(t, "/openapi/v3/apis/storage.k8s.io/v1"); code != http.StatusNotFound {
		t.Errorf("unknown group version: %d, want 404", code)
	}
}

func TestOpenAPIKindsAndExtensions(t *testing.T) {
	want := map[string][]string{
		"v1": {"io.k8s.api.core.v1.Pod", "io.k8s.api.core.v1.PodList", "io.k8s.api.core.v1.Node",
			"io.k8s.api.core.v1.Service", "io.k8s.api.core.v1.Endpoints", "io.k8s.api.core.v1.Namespace",
			"io.k8s.api.core.v1.Binding", "io.k8s.api.core.v1.Event", "io.k8s.api.core.v1.EventList"},
		"apps/v1":        {"io.k8s.api.apps.v1.Deployment", "io.k8s.api.apps.v1.DeploymentList", "io.k8s.api.apps.v1.ReplicaSet", "io.k8s.api.autoscaling.v1.Scale"},
		"autoscaling/v1": {"io.k8s.api.autoscaling.v1.Scale"},
	}
	common := []string{"io.k8s.apimachinery.pkg.apis.meta.v1.Status", "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions"}
	for gv, kinds := range want {
		d := loadDoc(t, gv)
		for _, k := range append(kinds, common...) {
			s, ok := d.Components.Schemas[k]
			if !ok {
				t.Errorf("%s: no schema %s", gv, k)
				continue
			}
			gvks, _ := s["x-kubernetes-group-version-kind"].([]any)
			if len(gvks) == 0 {
				t.Errorf("%s: %s has no x-kubernetes-group-version-kind", gv, k)
			}
		}
		if _, ok := d.Components.Schemas["io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"]; !ok {
			t.Errorf("%s: no ObjectMeta", gv)
		}
	}
	d := loadDoc(t, "apps/v1")
	prop := func(schema, field string) map[string]any {
		s := d.Components.Schemas[schema]
		props, _ := s["properties"].(map[string]any)
		p, _ := props[field].(map[string]any)
		if p == nil {
			t.Fatalf("%s has no property %s", schema, field)
		}
		return p
	}
	for _, c := range []struct {
		schema, field, mergeKey, keys string
	}{
		{"io.k8s.api.core.v1.PodSpec", "containers", "name", "name"},
		{"io.k8s.api.core.v1.Container", "ports", "containerPort", "containerPort,protocol"},
		{"io.k8s.api.core.v1.Container", "env", "name", "name"},
		{"io.k8s.api.apps.v1.DeploymentStatus", "conditions", "type", "type"},
	} {
		p := prop(c.schema, c.field)
		keys, _ := p["x-kubernetes-list-map-keys"].([]any)
		var ks []string
		for _, k := range keys {
			ks = append(ks, fmt.Sprint(k))
		}
		if p["x-kubernetes-patch-merge-key"] != c.mergeKey || p["x-kubernetes-patch-strategy"] != "merge" ||
			p["x-kubernetes-list-type"] != "map" || strings.Join(ks, ",") != c.keys {
			t.Errorf("%s.%s: extensions %v", c.schema, c.field, p)
		}
	}
	if s := d.Components.Schemas["io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector"]; s["x-kubernetes-map-type"] != "atomic" {
		t.Errorf("LabelSelector is not atomic: %v", s)
	}
	req, _ := d.Components.Schemas["io.k8s.api.core.v1.Container"]["required"].([]any)
	if len(req) != 1 || req[0] != "name" {
		t.Errorf("Container required = %v, want [name]", req)
	}
	// kubectl learns from the PATCH operation that the server validates fields.
	patch, _ := d.Paths["/apis/apps/v1/namespaces/{namespace}/deployments/{name}"]["patch"].(map[string]any)
	if patch == nil || !strings.Contains(fmt.Sprint(patch["parameters"]), "fieldValidation") ||
		fmt.Sprint(patch["x-kubernetes-group-version-kind"]) != "map[group:apps kind:Deployment version:v1]" {
		t.Errorf("deployment PATCH operation: %v", patch)
	}
}

// validateSchema is a tiny OpenAPI validator for these tests: types,
// properties (no unknown ones), required, items, additionalProperties,
// $ref and allOf. null is accepted anywhere, as Kubernetes does.
func validateSchema(schemas map[string]map[string]any, s map[string]any, v any, at string) []string {
	if ref, ok := s["$ref"].(string); ok {
		return validateSchema(schemas, schemas[strings.TrimPrefix(ref, "#/components/schemas/")], v, at)
	}
	var errs []string
	if all, ok := s["allOf"].([]any); ok {
		for _, sub := range all {
			errs = append(errs, validateSchema(schemas, sub.(map[string]any), v, at)...)
		}
	}
	if v == nil {
		return errs
	}
	if s["x-kubernetes-int-or-string"] == true {
		switch v.(type) {
		case string, json.Number:
			return errs
		}
		return append(errs, at+": want int or string")
	}
	switch s["type"] {
	case "string":
		if _, ok := v.(string); !ok {
			errs = append(errs, at+": want string")
		}
	case "integer", "number":
		if _, ok := v.(json.Number); !ok {
			errs = append(errs, at+": want number")
		}
	case "boolean":
		if _, ok := v.(bool); !ok {
			errs = append(errs, at+": want boolean")
		}
	case "array":
		l, ok := v.([]any)
		if !ok {
			return append(errs, at+": want array")
		}
		for i, item := range l {
			errs = append(errs, validateSchema(schemas, s["items"].(map[string]any), item, fmt.Sprintf("%s[%d]", at, i))...)
		}
	case "object":
		m, ok := v.(map[string]any)
		if !ok {
			return append(errs, at+": want object")
		}
		props, hasProps := s["properties"].(map[string]any)
		addl, _ := s["additionalProperties"].(map[string]any)
		for k, c := range m {
			switch {
			case props[k] != nil:
				errs = append(errs, validateSchema(schemas, props[k].(map[string]any), c, at+"."+k)...)
			case addl != nil:
				errs = append(errs, validateSchema(schemas, addl, c, at+"."+k)...)
			case hasProps:
				errs = append(errs, at+": unknown field "+k)
			}
		}
		req, _ := s["required"].([]any)
		for _, r := range req {
			if _, ok := m[r.(string)]; !ok {
				errs = append(errs, at+": missing required "+r.(string))
			}
		}
	}
	return errs
}

func validateAgainst(t *testing.T, gv, kind string, obj any) []string {
	t.Helper()
	b, err := api.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatal(err)
	}
	d := loadDoc(t, gv)
	return validateSchema(d.Components.Schemas, d.Components.Schemas[kind], v, "")
}

func TestOpenAPISchemaRoundTrip(t *testing.T) {
	var objs []api.Object
	for _, f := range []string{"../../examples/my-app.yaml", "../../examples/my-service.yaml"} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		got, err := api.DecodeManifests(b)
		if err != nil {
			t.Fatal(err)
		}
		objs = append(objs, got...)
	}
	dep := objs[0].(*api.Deployment)
	api.Default(dep)
	dep.UID, dep.ResourceVersion, dep.Generation = "u1", "7", 1
	dep.CreationTimestamp = api.Unix(100)
	dep.Status = api.DeploymentStatus{Replicas: 3, Conditions: []api.DeploymentCondition{{Type: "Available", Status: "True", LastUpdateTime: api.Unix(5)}}}
	dep.ManagedFields = []api.ManagedFieldsEntry{{Manager: "m", Operation: "Apply", FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:spec":{}}`)}}}
	svc := objs[1].(*api.Service)
	api.Default(svc)
	pod := &api.Pod{ObjectMeta: api.ObjectMeta{Name: "p"}, Spec: dep.Spec.Template.Spec,
		Status: api.PodStatus{Phase: api.PodRunning, PodIPs: []api.PodIP{{IP: "10.0.0.1"}}}}
	node := &api.Node{ObjectMeta: api.ObjectMeta{Name: "n"}, Status: api.NodeStatus{Capacity: api.ResourceList{"cpu": resource.MustParse("4")}}}
	at := api.NewMicroTime(time.Unix(7, 0))
	event := &api.Event{ObjectMeta: api.ObjectMeta{Name: "p.1", Namespace: "default"},
		InvolvedObject: api.ObjectReference{Kind: "Pod", Namespace: "default", Name: "p", UID: "u", FieldPath: "spec.containers{c}"},
		Reason:         "Pulled", Message: "pulled", Type: api.EventTypeNormal, Count: 2, EventTime: at,
		Source: api.EventSource{Component: "kubelet", Host: "n"}, FirstTimestamp: api.Unix(5), LastTimestamp: api.Unix(6),
		Action: "Pull", ReportingController: "kubelet", ReportingInstance: "n"}
	for _, c := range []struct {
		gv, kind string
		obj      any
	}{
		{"apps/v1", "io.k8s.api.apps.v1.Deployment", dep},
		{"apps/v1", "io.k8s.api.apps.v1.ReplicaSet", &api.ReplicaSet{Spec: api.ReplicaSetSpec{Selector: dep.Spec.Selector, Template: dep.Spec.Template}}},
		{"autoscaling/v1", "io.k8s.api.autoscaling.v1.Scale", &api.Scale{Spec: api.ScaleSpec{Replicas: 2}}},
		{"v1", "io.k8s.api.core.v1.Service", svc},
		{"v1", "io.k8s.api.core.v1.Pod", pod},
		{"v1", "io.k8s.api.core.v1.Node", node},
		{"v1", "io.k8s.api.core.v1.Endpoints", &api.Endpoints{Subsets: []api.EndpointSubset{{Addresses: []api.EndpointAddress{{IP: "1.2.3.4"}}}}}},
		{"v1", "io.k8s.api.core.v1.Binding", &api.Binding{Target: api.ObjectReference{Kind: "Node", Name: "n"}}},
		{"v1", "io.k8s.api.core.v1.Event", event},
		{"v1", "io.k8s.api.core.v1.EventList", &api.EventList{Items: []api.Event{*event}}},
		{"v1", "io.k8s.apimachinery.pkg.apis.meta.v1.Status", &api.NewNotFound(api.GroupResource{Resource: "pods"}, "x").Status},
	} {
		if errs := validateAgainst(t, c.gv, c.kind, c.obj); len(errs) > 0 {
			t.Errorf("%s does not validate: %v", c.kind, errs)
		}
	}
	// The validator (and so the schema) can fail: an unknown field, a wrong type.
	d := loadDoc(t, "apps/v1")
	var bad any
	dec := json.NewDecoder(strings.NewReader(`{"spec":{"replicas":"three","replicaz":1,"template":{"spec":{"containers":[{"image":"x"}]}}}}`))
	dec.UseNumber()
	_ = dec.Decode(&bad)
	errs := strings.Join(validateSchema(d.Components.Schemas, d.Components.Schemas["io.k8s.api.apps.v1.Deployment"], bad, ""), "; ")
	for _, w := range []string{".spec.replicas: want number", "unknown field replicaz", "missing required selector", "missing required name"} {
		if !strings.Contains(errs, w) {
			t.Errorf("validator missed %q: %s", w, errs)
		}
	}
}

// kubectl explain events and kubectl's client-side validation of an Event
// read these: the kind, its paths, and the fields named as core/v1 names
// them.
func TestOpenAPIDescribesEvents(t *testing.T) {
	d := loadDoc(t, "v1")
	ev := d.Components.Schemas["io.k8s.api.core.v1.Event"]
	gvks, _ := ev["x-kubernetes-group-version-kind"].([]any)
	if len(gvks) != 1 || fmt.Sprint(gvks[0]) != "map[group: kind:Event version:v1]" {
		t.Fatalf("Event gvk %v", gvks)
	}
	props, _ := ev["properties"].(map[string]any)
	for _, f := range []string{"apiVersion", "kind", "metadata", "involvedObject", "reason", "message", "source",
		"firstTimestamp", "lastTimestamp", "count", "type", "eventTime", "action", "reportingComponent", "reportingInstance"} {
		if props[f] == nil {
			t.Errorf("Event has no property %s", f)
		}
	}
	if req := fmt.Sprint(ev["required"]); req != "[involvedObject]" {
		t.Errorf("Event required %s, want [involvedObject]", req)
	}
	if _, ok := d.Components.Schemas["io.k8s.api.core.v1.EventSource"]; !ok {
		t.Error("no EventSource schema")
	}
	for _, p := range []string{"/api/v1/namespaces/{namespace}/events", "/api/v1/namespaces/{namespace}/events/{name}"} {
		if d.Paths[p] == nil {
			t.Errorf("no path %s", p)
		}
	}
	post, _ := d.Paths["/api/v1/namespaces/{namespace}/events"]["post"].(map[string]any)
	if fmt.Sprint(post["x-kubernetes-group-version-kind"]) != "map[group: kind:Event version:v1]" {
		t.Errorf("events POST: %v", post)
	}
	var bad any
	dec := json.NewDecoder(strings.NewReader(`{"involvedObject":{"kind":"Pod","colour":"red"},"count":"3"}`))
	dec.UseNumber()
	_ = dec.Decode(&bad)
	errs := strings.Join(validateSchema(d.Components.Schemas, ev, bad, ""), "; ")
	for _, w := range []string{"unknown field colour", ".count: want number"} {
		if !strings.Contains(errs, w) {
			t.Errorf("Event schema let %q through: %s", w, errs)
		}
	}
}

// TestOpenAPINamesKindsByTheirGroup: a kind's schema is named after its
// own group, as Kubernetes names it, whatever package converge keeps it in.
func TestOpenAPINamesKindsByTheirGroup(t *testing.T) {
	for gv, names := range map[string][]string{
		"apps/v1":                      {"io.k8s.api.apps.v1.StatefulSet", "io.k8s.api.apps.v1.DaemonSetList"},
		"batch/v1":                     {"io.k8s.api.batch.v1.Job", "io.k8s.api.batch.v1.CronJob"},
		"autoscaling/v2":               {"io.k8s.api.autoscaling.v2.HorizontalPodAutoscaler"},
		"policy/v1":                    {"io.k8s.api.policy.v1.PodDisruptionBudget"},
		"rbac.authorization.k8s.io/v1": {"io.k8s.api.rbac.v1.ClusterRoleBinding"},
		"v1":                           {"io.k8s.api.core.v1.PersistentVolumeClaim"},
	} {
		d := loadDoc(t, gv)
		for _, n := range names {
			if _, ok := d.Components.Schemas[n]; !ok {
				t.Errorf("%s: no schema %s", gv, n)
			}
		}
	}
}
