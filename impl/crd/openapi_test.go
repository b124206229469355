package crd

import (
	"slices"
	"testing"

	"k8s.io/kube-openapi/pkg/validation/spec"
)

func TestOpenAPIV2(t *testing.T) {
	swagger, err := OpenAPIV2(widgetCRD(t))
	if err != nil {
		t.Fatal(err)
	}
	widget, ok := swagger.Definitions["com.example.v1.Widget"]
	if !ok {
		t.Fatalf("no com.example.v1.Widget among %v", keys(swagger.Definitions))
	}
	requireProperties(t, widget.Properties["spec"], "replicas", "size", "image", "port", "config", "template", "tags")
	if _, ok := swagger.Definitions["com.example.v1beta1.Widget"]; !ok {
		t.Error("the served v1beta1 is missing")
	}
	if d := widget.Properties["spec"].Properties["replicas"].Default; d != nil {
		t.Errorf("v2 keeps default %v; upstream prunes defaults from v2", d)
	}
	if _, ok := swagger.Paths.Paths["/apis/example.com/v1/namespaces/{namespace}/widgets/{name}/scale"]; !ok {
		t.Error("no scale path")
	}
}

func TestOpenAPIV3(t *testing.T) {
	crd := widgetCRD(t)
	doc, err := OpenAPIV3(crd, "v1")
	if err != nil {
		t.Fatal(err)
	}
	widget, ok := doc.Components.Schemas["com.example.v1.Widget"]
	if !ok {
		t.Fatalf("no com.example.v1.Widget in components")
	}
	spec := widget.Properties["spec"]
	requireProperties(t, spec, "replicas", "size", "image")
	if spec.Properties["replicas"].Default != float64(1) && spec.Properties["replicas"].Default != int64(1) {
		t.Errorf("v3 replicas default = %#v, want 1", spec.Properties["replicas"].Default)
	}
	if !slices.Contains(spec.Required, "image") {
		t.Errorf("spec.required = %v, want image", spec.Required)
	}

	crd.Spec.Versions[1].Served = false
	if _, err := OpenAPIV3(crd, "v1beta1"); err == nil {
		t.Error("OpenAPIV3 published an unserved version")
	}
}

func requireProperties(t *testing.T, s spec.Schema, names ...string) {
	t.Helper()
	for _, n := range names {
		if _, ok := s.Properties[n]; !ok {
			t.Errorf("property %q missing; have %v", n, keys(s.Properties))
		}
	}
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
