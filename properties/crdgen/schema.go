package crdgen

import (
	"encoding/json"
	"slices"
	"strings"

	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"pgregory.net/rapid"
)

// builder turns a structural schema into generators once, at New, so
// that drawing costs no schema walks and unknown option paths are found
// before any property runs.
type builder struct {
	o    options
	used map[string]bool // option paths that matched a schema node
	free map[int]*rapid.Generator[any]
}

// Names the apiserver owns in every object and in embedded resources;
// they are drawn apart from the schema (status is the controller's).
var (
	rootOwned     = []string{"apiVersion", "kind", "metadata", "status"}
	embeddedOwned = []string{"apiVersion", "kind", "metadata"}
)

func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// value is the generator for the node at path: the user's replacement if
// any, else the schema's, narrowed by the user's filters.
func (b *builder) value(s *structuralschema.Structural, path string, depth int, keys []string) *rapid.Generator[any] {
	g := b.schemaValue(s, path, depth, keys) // also registers the paths below
	if gen, ok := b.o.fields[path]; ok {
		b.used[path] = true
		g = rapid.Map(gen, normalize)
	}
	if keeps, ok := b.o.filters[path]; ok {
		b.used[path] = true
		for _, keep := range keeps {
			g = g.Filter(keep)
		}
	}
	return g
}

func (b *builder) schemaValue(s *structuralschema.Structural, path string, depth int, keys []string) *rapid.Generator[any] {
	if s == nil {
		return b.freeJSON(depth)
	}
	g := b.typed(s, path, depth, keys)
	if vv := s.ValueValidation; vv != nil && len(vv.Enum) > 0 {
		g = enumGen(vv.Enum)
	}
	if s.Nullable {
		g = nullable(g)
	}
	return g
}

func (b *builder) typed(s *structuralschema.Structural, path string, depth int, keys []string) *rapid.Generator[any] {
	vv := s.ValueValidation
	if vv == nil {
		vv = &structuralschema.ValueValidation{}
	}
	switch {
	case s.XEmbeddedResource:
		return b.embedded(s, path, depth)
	case s.XIntOrString:
		return rapid.OneOf(intGen(vv, ""), stringGen(vv))
	}
	switch s.Type {
	case "object":
		return b.object(s, path, depth, keys, nil)
	case "array":
		return b.array(s, vv, path, depth)
	case "string":
		return stringGen(vv)
	case "integer":
		return intGen(vv, vv.Format)
	case "number":
		return numberGen(vv)
	case "boolean":
		return rapid.Bool().AsAny()
	}
	// No type: x-kubernetes-preserve-unknown-fields allows any value.
	return b.freeJSON(depth)
}

// limit is the largest collection drawn at depth: small, and at the
// schema's minimum once nesting is deep enough.
func (b *builder) limit(depth int, lo, hi *int64) (int, int) {
	minN, maxN := 0, b.o.maxItems
	if lo != nil {
		minN = int(*lo)
	}
	if hi != nil {
		maxN = min(maxN, int(*hi))
	}
	if depth >= b.o.maxDepth {
		maxN = minN
	}
	return minN, max(minN, maxN)
}

type property struct {
	name     string
	gen      *rapid.Generator[any]
	optional bool
}

// object draws required properties always and optional ones present or
// absent (absent first, so it shrinks away). A property with a default
// counts as optional: the apiserver fills it before validating. keys are
// list-map keys, which must be present to tell items apart; owned names
// are left to the caller, and are never drawn as unknown keys.
func (b *builder) object(s *structuralschema.Structural, path string, depth int, keys, owned []string) *rapid.Generator[any] {
	var required []string
	var minP, maxP *int64
	if vv := s.ValueValidation; vv != nil {
		required, minP, maxP = vv.Required, vv.MinProperties, vv.MaxProperties
	}
	names := make([]string, 0, len(s.Properties))
	for name := range s.Properties {
		names = append(names, name)
	}
	slices.Sort(names)

	var props []property
	taken := map[string]bool{}
	for _, name := range owned {
		taken[name] = true
	}
	for _, name := range names {
		taken[name] = true
		if slices.Contains(owned, name) {
			continue
		}
		child := s.Properties[name]
		p := join(path, name)
		_, replaced := b.o.fields[p]
		optional := !replaced && !slices.Contains(keys, name) &&
			(!slices.Contains(required, name) || child.Default.Object != nil)
		if optional && depth >= b.o.maxDepth {
			b.value(&child, p, depth+1, nil) // register paths only
			continue
		}
		props = append(props, property{name: name, gen: b.value(&child, p, depth+1, nil), optional: optional})
	}

	// Replacements for keys the schema does not declare, where the object
	// keeps unknown keys.
	if s.AdditionalProperties != nil || s.XPreserveUnknownFields {
		prefix := join(path, "")
		for p, gen := range b.o.fields {
			name, ok := strings.CutPrefix(p, prefix)
			if !ok || name == "" || name == "*" || strings.ContainsAny(name, ".[") || taken[name] {
				continue
			}
			b.used[p] = true
			taken[name] = true
			props = append(props, property{name: name, gen: rapid.Map(gen, normalize)})
		}
		slices.SortFunc(props, func(a, b property) int { return strings.Compare(a.name, b.name) })
	}

	var extra *rapid.Generator[map[string]any]
	switch {
	case s.AdditionalProperties != nil:
		val := b.value(s.AdditionalProperties.Structural, path+".*", depth+1, nil)
		lo, hi := b.limit(depth, minP, maxP)
		extra = rapid.MapOfN(keyGen(taken), val, lo, hi)
	case s.XPreserveUnknownFields:
		lo, hi := b.limit(depth, nil, nil)
		extra = rapid.MapOfN(keyGen(taken), b.freeJSON(depth+1), lo, hi)
	}
	if len(props) == 0 && extra == nil {
		// Nothing to draw, but rapid wants every generator to use data.
		return rapid.Map(rapid.Just(0), func(int) any { return map[string]any{} })
	}
	return rapid.Custom(func(t *rapid.T) any {
		m := map[string]any{}
		for _, p := range props {
			if p.optional && !rapid.Bool().Draw(t, p.name+"?") {
				continue
			}
			if v := p.gen.Draw(t, p.name); v != Absent {
				m[p.name] = v
			}
		}
		if extra != nil {
			for k, v := range extra.Draw(t, "keys") {
				if _, ok := m[k]; !ok {
					m[k] = v
				}
			}
		}
		return m
	})
}

// array honours minItems and maxItems, and x-kubernetes-list-type: set
// items are distinct values, map items distinct by their map keys.
func (b *builder) array(s *structuralschema.Structural, vv *structuralschema.ValueValidation, path string, depth int) *rapid.Generator[any] {
	listType := ""
	if s.XListType != nil {
		listType = *s.XListType
	}
	var keys []string
	if listType == "map" {
		keys = s.XListMapKeys
	}
	items := b.value(s.Items, path+"[*]", depth+1, keys)
	lo, hi := b.limit(depth, vv.MinItems, vv.MaxItems)
	var list *rapid.Generator[[]any]
	switch {
	case listType == "set" || vv.UniqueItems:
		list = rapid.SliceOfNDistinct(items, lo, hi, jsonKey)
	case listType == "map":
		list = rapid.SliceOfNDistinct(items, lo, hi, func(v any) string {
			m, _ := v.(map[string]any)
			k := make([]any, len(keys))
			for i, name := range keys {
				k[i] = m[name]
			}
			return jsonKey(k)
		})
	default:
		list = rapid.SliceOfN(items, lo, hi)
	}
	return rapid.Map(list, func(l []any) any {
		return slices.DeleteFunc(l, func(v any) bool { return v == Absent })
	})
}

// jsonKey identifies a value as its JSON text (maps encode sorted), which
// is how the apiserver compares set items.
func jsonKey(v any) string {
	data, _ := json.Marshal(v)
	return string(data)
}

// embedded draws an x-kubernetes-embedded-resource: the declared fields,
// plus apiVersion and kind (required upstream) and sometimes a name.
// Declared apiVersion or kind fields are used only when constrained (enum,
// pattern or WithField); a bare string would rarely parse.
func (b *builder) embedded(s *structuralschema.Structural, path string, depth int) *rapid.Generator[any] {
	body := b.object(s, path, depth, nil, embeddedOwned)
	typeField := func(name string, fallback []string) *rapid.Generator[any] {
		p := join(path, name)
		if child, ok := s.Properties[name]; ok {
			_, replaced := b.o.fields[p]
			vv := child.ValueValidation
			if replaced || (vv != nil && (len(vv.Enum) > 0 || vv.Pattern != "")) {
				return b.value(&child, p, depth+1, nil)
			}
		}
		if gen, ok := b.o.fields[p]; ok {
			b.used[p] = true
			return rapid.Map(gen, normalize)
		}
		return rapid.SampledFrom(fallback).AsAny()
	}
	apiVersion := typeField("apiVersion", []string{"v1", "example.com/v1"})
	kind := typeField("kind", []string{"ConfigMap", "Widget"})
	return rapid.Custom(func(t *rapid.T) any {
		m := body.Draw(t, "embedded").(map[string]any)
		m["apiVersion"] = apiVersion.Draw(t, "apiVersion")
		m["kind"] = kind.Draw(t, "kind")
		if depth < b.o.maxDepth && rapid.Bool().Draw(t, "metadata?") {
			m["metadata"] = map[string]any{"name": nameGen.Draw(t, "name")}
		}
		return m
	})
}

// root draws an object without apiVersion, kind and metadata, with spec
// always present when the schema declares it (status is the
// controller's). Without a schema, spec is free-form.
func (b *builder) root(s *structuralschema.Structural) *rapid.Generator[any] {
	if s == nil {
		spec := b.freeObject(1)
		return rapid.Custom(func(t *rapid.T) any {
			return map[string]any{"spec": spec.Draw(t, "spec")}
		})
	}
	var keys []string
	if _, ok := s.Properties["spec"]; ok {
		keys = []string{"spec"}
	}
	return b.object(s, "", 0, keys, rootOwned)
}
