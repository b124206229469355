package crdgen

import (
	"context"
	"reflect"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"pgregory.net/rapid"
)

// TestDrawsPassValidation: every drawn object, after the apiserver's
// decoding (Prepare prunes nothing, then defaults), passes create
// validation, schema and CEL; it has the kind's apiVersion and kind, the
// given namespace only when namespaced, a drawn name, and no status.
func TestDrawsPassValidation(t *testing.T) {
	for _, f := range crdFiles {
		t.Run(f.name, func(t *testing.T) {
			v := loadCRD(t, f.path, f.version)
			g := newGen(t, v)
			rapid.Check(t, func(rt *rapid.T) {
				obj := g.Object("default", "").Draw(rt, "object")
				drawn := runtime.DeepCopyJSON(obj)
				unknown, err := v.Prepare(obj)
				if err != nil || len(unknown) > 0 {
					rt.Fatalf("Prepare: %v, pruned %v", err, unknown)
				}
				if errs := v.Validate(context.Background(), obj); len(errs) > 0 {
					rt.Fatalf("invalid: %v", errs)
				}
				if drawn["apiVersion"] != v.Kind.GroupVersion().String() || drawn["kind"] != v.Kind.Kind {
					rt.Fatalf("type meta %v %v", drawn["apiVersion"], drawn["kind"])
				}
				meta := drawn["metadata"].(map[string]any)
				if _, ok := meta["namespace"]; ok != v.Namespaced || meta["name"] == "" {
					rt.Fatalf("metadata %v for namespaced=%v", meta, v.Namespaced)
				}
				if _, ok := drawn["status"]; ok || spec(drawn) == nil {
					rt.Fatalf("status present or spec missing: %v", drawn)
				}
			})
		})
	}
}

// TestSpecPassesValidation: Spec draws the spec of a valid object.
func TestSpecPassesValidation(t *testing.T) {
	v := loadCRD(t, crdFiles[1].path, crdFiles[1].version)
	g := newGen(t, v)
	rapid.Check(t, func(rt *rapid.T) {
		s := g.Spec().Draw(rt, "spec")
		obj := map[string]any{"apiVersion": "example.com/v1", "kind": "Widget",
			"metadata": map[string]any{"name": "w", "namespace": "ns"}, "spec": runtime.DeepCopyJSON(s)}
		if _, err := v.Prepare(obj); err != nil {
			rt.Fatal(err)
		}
		if errs := v.Validate(context.Background(), obj); len(errs) > 0 {
			rt.Fatalf("invalid: %v", errs)
		}
	})
}

// TestSchemaDrawsNeedNoRejection: the schema's generators alone, before
// any retry, only ever break CEL rules; every other constraint (types,
// bounds, enums, patterns, formats, list types, embedded resources) holds
// by construction. Rejection is for CEL, not a crutch.
func TestSchemaDrawsNeedNoRejection(t *testing.T) {
	for _, f := range crdFiles {
		t.Run(f.name, func(t *testing.T) {
			v := loadCRD(t, f.path, f.version)
			g := newGen(t, v)
			draws, rejected := 0, 0
			rapid.Check(t, func(rt *rapid.T) {
				obj := g.draw(rt, "default", "w")
				draws++
				errs := g.check(obj)
				for _, e := range errs {
					if _, _, ok := ruleFor(v.Schema, e); !ok {
						rt.Fatalf("a schema draw broke more than CEL: %v", e)
					}
				}
				if len(errs) > 0 {
					rejected++
				}
			})
			t.Logf("%d of %d draws broke a CEL rule", rejected, draws)
		})
	}
}

// TestDrawsAreNotChangedByValidation: the object returned is what a user
// writes: validation ran on a copy, so no defaults appear.
func TestDrawsAreNotChangedByValidation(t *testing.T) {
	v := loadCRD(t, crdFiles[0].path, crdFiles[0].version)
	g := newGen(t, v)
	sawDefaultable := false
	for seed := range 50 {
		obj := g.Object("default", "w").Example(seed)
		s := spec(obj)
		if _, ok := s["size"]; !ok {
			sawDefaultable = true
			prepared := runtime.DeepCopyJSON(obj)
			if _, err := v.Prepare(prepared); err != nil {
				t.Fatal(err)
			}
			if spec(prepared)["size"] != "medium" || reflect.DeepEqual(prepared, obj) {
				t.Fatalf("defaulting is not visible: drawn %v, prepared %v", obj, prepared)
			}
		}
	}
	if !sawDefaultable {
		t.Fatal("size, which has a default, was never drawn absent")
	}
}
