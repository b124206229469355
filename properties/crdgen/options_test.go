package crdgen

import (
	"context"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// TestWithFieldReplaces: a replaced field is always drawn from the user's
// generator (converted to JSON form: int becomes int64), whatever the
// schema says, and the objects stay valid.
func TestWithFieldReplaces(t *testing.T) {
	v := loadCRD(t, crdFiles[1].path, crdFiles[1].version)
	g := newGen(t, v,
		WithField("spec.replicas", rapid.IntRange(0, 3).AsAny()),
		WithField("spec.config.mode", rapid.Just[any]("fast")),        // undeclared key in a preserved object
		WithField("spec.tags[*]", rapid.SampledFrom([]any{"x", "y"})), // array items
	)
	seen := map[int64]bool{}
	rapid.Check(t, func(rt *rapid.T) {
		obj := g.Object("default", "w").Draw(rt, "object")
		s := spec(obj)
		r, ok := s["replicas"].(int64)
		if !ok || r < 0 || r > 3 {
			rt.Fatalf("replicas %#v, want an int64 in [0, 3]", s["replicas"])
		}
		seen[r] = true
		if c, ok := s["config"].(map[string]any); ok && c["mode"] != "fast" {
			rt.Fatalf("config %v without mode: fast", c)
		}
		tags, _ := s["tags"].([]any)
		for _, tag := range tags {
			if tag != "x" && tag != "y" {
				rt.Fatalf("tag %q", tag)
			}
		}
		if len(tags) > 2 {
			rt.Fatalf("tags %v: a set of two values", tags)
		}
		if _, err := v.Prepare(obj); err != nil {
			rt.Fatal(err)
		}
		if errs := v.Validate(context.Background(), obj); len(errs) > 0 {
			rt.Fatal(errs)
		}
	})
	if len(seen) != 4 {
		t.Errorf("replicas drawn %v, want all of 0..3", seen)
	}
}

// TestOptionalAndAbsent: Optional keeps a replaced field optional;
// Absent leaves it out.
func TestOptionalAndAbsent(t *testing.T) {
	v := loadCRD(t, crdFiles[0].path, crdFiles[0].version)
	g := newGen(t, v,
		WithField("spec.replicas", Optional(rapid.Just[any](2))),
		WithField("spec.size", rapid.Just(Absent)),
	)
	present, absent := 0, 0
	for seed := range 100 {
		s := spec(g.Object("default", "w").Example(seed))
		if _, ok := s["size"]; ok {
			t.Fatalf("size drawn despite Absent: %v", s)
		}
		switch s["replicas"] {
		case int64(2):
			present++
		case nil:
			absent++
		default:
			t.Fatalf("replicas %#v", s["replicas"])
		}
	}
	if present == 0 || absent == 0 {
		t.Fatalf("Optional: present %d, absent %d times", present, absent)
	}
}

// TestWithFilter: a filter narrows the schema's generator, which still
// honours the schema (pattern, map value length).
func TestWithFilter(t *testing.T) {
	v := loadCRD(t, crdFiles[2].path, crdFiles[2].version)
	g := newGen(t, v,
		WithFilter("spec.handle", func(h any) bool { return !strings.Contains(h.(string), "a") }),
		WithFilter("spec.labels.*", func(l any) bool { return l != "" }),
	)
	rapid.Check(t, func(rt *rapid.T) {
		s := spec(g.Object("", "g").Draw(rt, "object"))
		if h, ok := s["handle"].(string); ok && strings.Contains(h, "a") {
			rt.Fatalf("handle %q", h)
		}
		labels, _ := s["labels"].(map[string]any)
		for k, l := range labels {
			if l == "" {
				rt.Fatalf("label %s empty", k)
			}
		}
	})
}

// TestUnknownPathsAreRefused: a path that names no schema node is an
// error at New, not a silently unconstrained field.
func TestUnknownPathsAreRefused(t *testing.T) {
	v := loadCRD(t, crdFiles[0].path, crdFiles[0].version)
	for _, opt := range []Option{
		WithField("spec.replica", rapid.Just[any](1)),
		WithField("replicas", rapid.Just[any](1)),
		WithFilter("spec.image.x", func(any) bool { return true }),
		WithField("spec.replicas[*]", rapid.Just[any](1)),
	} {
		if _, err := New(v, opt); err == nil || !strings.Contains(err.Error(), "no field") {
			t.Errorf("New: %v, want a no-field error", err)
		}
	}
	for _, opt := range []Option{WithMaxItems(-1), WithMaxDepth(0), WithRetries(0), WithField("spec", nil)} {
		if _, err := New(v, opt); err == nil {
			t.Error("New accepted a bad option")
		}
	}
}

// TestMaxItems: collections stay within WithMaxItems, schema minimums
// aside.
func TestMaxItems(t *testing.T) {
	v := loadCRD(t, crdFiles[2].path, crdFiles[2].version)
	g := newGen(t, v, WithMaxItems(1))
	rapid.Check(t, func(rt *rapid.T) {
		s := spec(g.Object("", "g").Draw(rt, "object"))
		for _, k := range []string{"ports", "zones", "matrix"} {
			if l, _ := s[k].([]any); len(l) > 1 {
				rt.Fatalf("%s has %d items", k, len(l))
			}
		}
		if m, _ := s["labels"].(map[string]any); len(m) > 1 {
			rt.Fatalf("labels has %d keys", len(m))
		}
	})
}
