package crd

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"
)

// widgetCRD reads testdata/widget.yaml and applies v1 defaults, as the
// apiserver's decoder would.
func widgetCRD(t *testing.T) *apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	data, err := os.ReadFile("testdata/widget.yaml")
	if err != nil {
		t.Fatal(err)
	}
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := yaml.UnmarshalStrict(data, crd); err != nil {
		t.Fatal(err)
	}
	Default(crd)
	return crd
}

func widgetVersion(t *testing.T, version string) *Version {
	t.Helper()
	v, err := Compile(widgetCRD(t), version)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// object decodes JSON the way a request body is decoded (int64, float64).
func object(t *testing.T, js string) map[string]any {
	t.Helper()
	var obj map[string]any
	if err := json.Unmarshal([]byte(js), &obj); err != nil {
		t.Fatal(err)
	}
	// The apiserver's JSON decoder yields int64 for integers.
	return convertNumbers(obj).(map[string]any)
}

func convertNumbers(x any) any {
	switch x := x.(type) {
	case map[string]any:
		for k, v := range x {
			x[k] = convertNumbers(v)
		}
	case []any:
		for i, v := range x {
			x[i] = convertNumbers(v)
		}
	case float64:
		if x == float64(int64(x)) {
			return int64(x)
		}
	}
	return x
}

const validWidget = `{
	"apiVersion": "example.com/v1",
	"kind": "Widget",
	"metadata": {"name": "w", "namespace": "default", "creationTimestamp": "2024-01-01T00:00:00Z"},
	"spec": {"image": "nginx:1.27", "replicas": 3, "size": "small"}
}`

// requireError fails unless errs has an error at path whose message
// contains detail.
func requireError(t *testing.T, errs field.ErrorList, path, detail string) {
	t.Helper()
	for _, e := range errs {
		if e.Field == path && strings.Contains(e.Error(), detail) {
			return
		}
	}
	t.Fatalf("want an error at %s containing %q, got %v", path, detail, errs)
}

func requireNoErrors(t *testing.T, errs field.ErrorList) {
	t.Helper()
	if len(errs) > 0 {
		t.Fatalf("want no errors, got %v", errs)
	}
}
