package crdgen

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"pgregory.net/rapid"

	"github.com/converge-dev/converge/impl/crd"
)

// Generator draws objects of one CRD version.
type Generator struct {
	v    *crd.Version
	o    options
	body *rapid.Generator[any] // the object without apiVersion, kind, metadata
}

// New compiles v's structural schema into generators. Paths given to
// WithField and WithFilter must name schema nodes, so that a typo fails
// here rather than leaving a field unconstrained.
func New(v *crd.Version, opts ...Option) (*Generator, error) {
	if v == nil {
		return nil, errors.New("crdgen: nil version")
	}
	o := defaultOptions()
	for _, opt := range opts {
		if err := opt(&o); err != nil {
			return nil, err
		}
	}
	b := &builder{o: o, used: map[string]bool{}, free: map[int]*rapid.Generator[any]{}}
	body := b.root(v.Schema)
	var unknown []string
	for p := range maps.Keys(o.fields) {
		if !b.used[p] {
			unknown = append(unknown, p)
		}
	}
	for p := range maps.Keys(o.filters) {
		if !b.used[p] && !slices.Contains(unknown, p) {
			unknown = append(unknown, p)
		}
	}
	if len(unknown) > 0 {
		slices.Sort(unknown)
		return nil, fmt.Errorf("crdgen: %s: no field %s in the schema (paths look like spec.replicas, spec.ports[*].name, spec.labels.*)",
			v.Kind, strings.Join(quote(unknown), ", "))
	}
	return &Generator{v: v, o: o, body: body}, nil
}

func quote(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = fmt.Sprintf("%q", s)
	}
	return out
}

// Object draws a whole custom resource as a user would create it:
// apiVersion, kind, metadata (name, and namespace for namespaced kinds;
// a drawn name when name is empty) and spec; never status. Draws that
// fail validation are drawn again (see the package doc).
func (g *Generator) Object(namespace, name string) *rapid.Generator[map[string]any] {
	return rapid.Custom(func(t *rapid.T) map[string]any {
		var rej rejections
		for range g.o.retries {
			obj := g.draw(t, namespace, name)
			errs := g.check(obj)
			if len(errs) == 0 {
				return obj
			}
			rej.add(errs)
		}
		t.Fatal(g.explain(&rej))
		return nil
	})
}

// Spec draws the spec of a valid object. Validation sees a whole object,
// with a placeholder name and namespace.
func (g *Generator) Spec() *rapid.Generator[map[string]any] {
	return rapid.Map(g.Object("default", "crdgen"), func(obj map[string]any) map[string]any {
		spec, _ := obj["spec"].(map[string]any)
		if spec == nil {
			spec = map[string]any{}
		}
		return spec
	})
}

// draw is one unvalidated object.
func (g *Generator) draw(t *rapid.T, namespace, name string) map[string]any {
	obj := g.body.Draw(t, "object").(map[string]any)
	if name == "" {
		name = nameGen.Draw(t, "name")
	}
	meta := map[string]any{"name": name}
	if namespace != "" && g.v.Namespaced {
		meta["namespace"] = namespace
	}
	obj["apiVersion"] = g.v.Kind.GroupVersion().String()
	obj["kind"] = g.v.Kind.Kind
	obj["metadata"] = meta
	return obj
}

// check runs the apiserver's create path on a copy: decoding (pruning,
// defaulting) then validation. A field the decoder prunes is an error
// too, as with fieldValidation=Strict, kubectl's default.
func (g *Generator) check(obj map[string]any) field.ErrorList {
	cp := runtime.DeepCopyJSON(obj)
	unknown, err := g.v.Prepare(cp)
	if err != nil {
		var fe *field.Error
		if errors.As(err, &fe) {
			return field.ErrorList{fe}
		}
		return field.ErrorList{field.InternalError(nil, err)}
	}
	var errs field.ErrorList
	for _, p := range unknown {
		errs = append(errs, field.Forbidden(field.NewPath(p), "unknown field, pruned by the schema"))
	}
	return append(errs, g.v.Validate(context.Background(), cp)...)
}
