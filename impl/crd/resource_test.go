package crd

import (
	"context"
	"reflect"
	"slices"
	"testing"
)

func TestCompile(t *testing.T) {
	v := widgetVersion(t, "v1")
	if v.Kind.String() != "example.com/v1, Kind=Widget" || v.Resource.Resource != "widgets" || v.ListKind.Kind != "WidgetList" {
		t.Errorf("names: %v %v %v", v.Kind, v.Resource, v.ListKind)
	}
	if !v.Namespaced || !v.Served || !v.Storage || v.Status == nil || v.Scale == nil || v.Scale.SpecReplicasPath != ".spec.replicas" {
		t.Errorf("version facts: %+v", v)
	}
	if _, err := Compile(widgetCRD(t), "v2"); err == nil {
		t.Error("Compile of a missing version succeeded")
	}
}

func TestPreparePrunesAndDefaults(t *testing.T) {
	v := widgetVersion(t, "v1")
	obj := object(t, `{
		"apiVersion": "example.com/v1", "kind": "Widget", "extra": true,
		"metadata": {"name": "w", "namespace": "default", "bogus": 1},
		"spec": {
			"image": "nginx", "unknown": 1, "port": "http",
			"config": {"anything": {"goes": [1, "two"]}},
			"template": {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "junk": 1}, "spec": {"containers": []}}
		}
	}`)
	unknown, err := v.Prepare(obj)
	if err != nil {
		t.Fatal(err)
	}
	want := object(t, `{
		"apiVersion": "example.com/v1", "kind": "Widget",
		"metadata": {"name": "w", "namespace": "default"},
		"spec": {
			"image": "nginx", "port": "http", "replicas": 1, "size": "medium",
			"config": {"anything": {"goes": [1, "two"]}},
			"template": {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": {"containers": []}}
		}
	}`)
	if !reflect.DeepEqual(obj, want) {
		t.Errorf("prepared:\n got %v\nwant %v", obj, want)
	}
	slices.Sort(unknown)
	if wantUnknown := []string{"extra", "metadata.bogus", "spec.template.metadata.junk", "spec.unknown"}; !slices.Equal(unknown, wantUnknown) {
		t.Errorf("unknown fields = %v, want %v", unknown, wantUnknown)
	}

	// Defaults never override what the user set.
	obj = object(t, `{"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}, "spec": {"image": "nginx", "replicas": 0, "size": "large"}}`)
	if _, err := v.Prepare(obj); err != nil {
		t.Fatal(err)
	}
	if spec := obj["spec"].(map[string]any); spec["replicas"] != int64(0) || spec["size"] != "large" {
		t.Errorf("defaulting overrode user values: %v", spec)
	}
}

func TestPrepareMalformedMetadata(t *testing.T) {
	v := widgetVersion(t, "v1")
	body := `{"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w", "labels": 5}, "spec": {"image": "nginx"}}`
	if _, err := v.Prepare(object(t, body)); err == nil {
		t.Error("Prepare accepted metadata.labels: 5")
	}
}

func TestValidateResource(t *testing.T) {
	v := widgetVersion(t, "v1")
	requireNoErrors(t, v.Validate(context.Background(), object(t, validWidget)))
	for _, tc := range []struct {
		name         string
		spec         map[string]any
		path, detail string
	}{
		{"replicas above maximum", map[string]any{"replicas": int64(11)}, "spec.replicas", "should be less than or equal to 10"},
		{"replicas below minimum", map[string]any{"replicas": int64(-1)}, "spec.replicas", "should be greater than or equal to 0"},
		{"size outside enum", map[string]any{"size": "huge"}, "spec.size", `Unsupported value: "huge": supported values: "small", "medium", "large"`},
		{"image pattern", map[string]any{"image": "NGINX!"}, "spec.image", "should match"},
		{"image required", map[string]any{"image": nil}, "spec.image", "Required value"},
		{"CEL rule", map[string]any{"replicas": int64(7), "size": "medium"}, "spec", "more than 5 replicas need size large"},
		{"duplicate in a set", map[string]any{"tags": []any{"a", "a"}}, "spec.tags[1]", `Duplicate value: "a"`},
		{"embedded resource without kind", map[string]any{"template": map[string]any{"apiVersion": "v1"}}, "spec.template.kind", "Required value"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			obj := object(t, validWidget)
			spec := obj["spec"].(map[string]any)
			for k, val := range tc.spec {
				if val == nil {
					delete(spec, k)
				} else {
					spec[k] = val
				}
			}
			requireError(t, v.Validate(context.Background(), obj), tc.path, tc.detail)
		})
	}

	wrongKind := object(t, validWidget)
	wrongKind["kind"] = "Gadget"
	requireError(t, v.Validate(context.Background(), wrongKind), "kind", "must be Widget")
}

// CEL rules run only once the schema is satisfied, as upstream's strategy
// orders them; the note tells the user why a rule was not checked.
func TestCELSkippedOnBlockingErrors(t *testing.T) {
	v := widgetVersion(t, "v1")
	obj := object(t, validWidget)
	spec := obj["spec"].(map[string]any)
	spec["replicas"], spec["size"] = int64(7), "huge"
	errs := v.Validate(context.Background(), obj)
	requireError(t, errs, "<nil>", "some validation rules were not checked")
	for _, e := range errs {
		if e.Field == "spec" {
			t.Errorf("CEL ran despite a blocking error: %v", e)
		}
	}
}

func TestTransitionRuleOnlyOnUpdate(t *testing.T) {
	ctx := context.Background()
	v := widgetVersion(t, "v1")
	old := object(t, validWidget)
	old["metadata"].(map[string]any)["resourceVersion"] = "5"
	obj := object(t, validWidget)
	obj["metadata"].(map[string]any)["resourceVersion"] = "5"
	obj["spec"].(map[string]any)["image"] = "redis"

	requireNoErrors(t, v.Validate(ctx, obj))
	requireError(t, v.ValidateUpdate(ctx, obj, old), "spec", "image is immutable")
	obj["spec"].(map[string]any)["image"] = "nginx:1.27"
	requireNoErrors(t, v.ValidateUpdate(ctx, obj, old))
}

func TestStatusSubresource(t *testing.T) {
	ctx := context.Background()
	v := widgetVersion(t, "v1")

	old := object(t, validWidget)
	old["metadata"].(map[string]any)["resourceVersion"] = "5"
	old["metadata"].(map[string]any)["generation"] = int64(1)
	old["status"] = map[string]any{"readyReplicas": int64(1)}

	// A status update is checked against the status schema.
	obj := object(t, validWidget)
	obj["metadata"].(map[string]any)["resourceVersion"] = "5"
	obj["metadata"].(map[string]any)["generation"] = int64(1)
	obj["status"] = map[string]any{"readyReplicas": int64(-1)}
	requireError(t, v.ValidateStatusUpdate(ctx, obj, old), "status.readyReplicas", "should be greater than or equal to 0")
	obj["status"] = map[string]any{"readyReplicas": int64(3)}
	requireNoErrors(t, v.ValidateStatusUpdate(ctx, obj, old))
}

// A Version serves concurrent requests, as upstream's per-version storage
// does; run with -race.
func TestConcurrentUse(t *testing.T) {
	v := widgetVersion(t, "v1")
	done := make(chan struct{})
	for range 4 {
		go func() {
			defer func() { done <- struct{}{} }()
			for range 20 {
				obj := object(t, validWidget)
				if _, err := v.Prepare(obj); err != nil {
					t.Error(err)
				}
				if errs := v.Validate(context.Background(), obj); len(errs) > 0 {
					t.Error(errs)
				}
				if _, err := v.Cells(obj); err != nil {
					t.Error(err)
				}
				if _, err := v.FieldSet(obj); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	for range 4 {
		<-done
	}
}
