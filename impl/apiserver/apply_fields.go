package apiserver

import (
	"reflect"
	"strings"

	"github.com/converge-dev/converge/impl/apiserver/internal/fieldpath"
)

// This file walks generic JSON (map[string]any, []any, json.Number, ...)
// guided by impl/api's Go types and the fieldExts table, the way
// Kubernetes' structured-merge-diff walks a schema.

// strippedPaths are owned by nobody: identity, server-set metadata and
// status (which belongs to the status subresource).
var strippedPaths = []fieldpath.Path{
	{"f:apiVersion"}, {"f:kind"}, {"f:status"},
	{"f:metadata", "f:name"}, {"f:metadata", "f:namespace"}, {"f:metadata", "f:uid"},
	{"f:metadata", "f:resourceVersion"}, {"f:metadata", "f:generation"},
	{"f:metadata", "f:creationTimestamp"}, {"f:metadata", "f:deletionTimestamp"},
	{"f:metadata", "f:deletionGracePeriodSeconds"}, {"f:metadata", "f:managedFields"},
	{"f:metadata", "f:generateName"}, {"f:metadata", "f:selfLink"},
}

func stripped(p fieldpath.Path) bool {
	for _, s := range strippedPaths {
		if p.HasPrefix(s) {
			return true
		}
	}
	// metadata itself is a container, never a member of its own.
	return len(p) == 1 && p[0] == "f:metadata"
}

func deref(t reflect.Type) reflect.Type {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

// isScalarType: types whose JSON value is owned as one.
func isScalarType(t reflect.Type) bool {
	if t == timeType || t == microTimeType || t == rawType || isKubeScalar(t) {
		return true
	}
	switch t.Kind() {
	case reflect.Struct, reflect.Map, reflect.Slice:
		return false
	}
	return true
}

func isAtomic(t reflect.Type, ext fieldExt) bool {
	return ext.mapType == "atomic" || atomicTypes[t.Name()]
}

// childOf is the type and extensions of field name inside a value of t
// (a struct field or a map value).
func childOf(t reflect.Type, name string) (reflect.Type, fieldExt, bool) {
	t = deref(t)
	switch t.Kind() {
	case reflect.Struct:
		f, ok := fieldOf(t, name)
		if !ok {
			return nil, fieldExt{}, false
		}
		return f.typ, extOf(f), true
	case reflect.Map:
		return t.Elem(), fieldExt{}, true
	}
	return nil, fieldExt{}, false
}

// fieldSet is every path v sets, minus the stripped ones. The stripped
// keys are left out before the walk rather than removed after it, which
// spares listing and testing every path.
func fieldSet(v map[string]any, t reflect.Type) *fieldpath.Set {
	out := &fieldpath.Set{}
	collectMembers(withoutStripped(v), t, nil, out)
	out.Remove(fieldpath.Path{"f:metadata"}) // set when metadata is left empty
	return out
}

// withoutStripped is v without the keys strippedPaths name (v itself is
// left alone).
func withoutStripped(v map[string]any) map[string]any {
	out := make(map[string]any, len(v))
	for k, e := range v {
		if k == "metadata" || !stripped(fieldpath.Path{fieldpath.Field(k)}) {
			out[k] = e
		}
	}
	if md, ok := out["metadata"].(map[string]any); ok {
		kept := make(map[string]any, len(md))
		for k, e := range md {
			if !stripped(fieldpath.Path{"f:metadata", fieldpath.Field(k)}) {
				kept[k] = e
			}
		}
		out["metadata"] = kept
	}
	return out
}

func collectFields(v any, t reflect.Type, ext fieldExt, at fieldpath.Path, out *fieldpath.Set) {
	t = deref(t)
	if v == nil || t == nil || isScalarType(t) {
		out.Insert(at)
		return
	}
	switch t.Kind() {
	case reflect.Struct, reflect.Map:
		m, ok := v.(map[string]any)
		if !ok || isAtomic(t, ext) || len(m) == 0 {
			out.Insert(at)
			return
		}
		if t.Kind() == reflect.Map {
			out.Insert(at) // Kubernetes records a granular map as ".": {}
		}
		collectMembers(m, t, at, out)
	case reflect.Slice:
		l, ok := v.([]any)
		if !ok {
			out.Insert(at)
			return
		}
		switch ext.listType {
		case "map":
			for _, item := range l {
				key, ok := itemKey(item, t.Elem(), ext)
				m, isMap := item.(map[string]any)
				if !ok || !isMap {
					out.Insert(at) // no usable key: own the list whole
					continue
				}
				p := at.Child(key)
				out.Insert(p)
				collectMembers(m, t.Elem(), p, out)
			}
		case "set":
			out.Insert(at)
			for _, item := range l {
				out.Insert(at.Child(fieldpath.Value(item)))
			}
		default:
			out.Insert(at)
		}
	default:
		out.Insert(at)
	}
}

func collectMembers(m map[string]any, t reflect.Type, at fieldpath.Path, out *fieldpath.Set) {
	for k, c := range m {
		ct, ext, ok := childOf(t, k)
		if !ok {
			out.Insert(at.Child(fieldpath.Field(k)))
			continue
		}
		collectFields(c, ct, ext, at.Child(fieldpath.Field(k)), out)
	}
}

// itemKey is the k: element of a keyed-list item; key fields the item
// leaves out take their schema default (protocol: TCP), as in Kubernetes.
func itemKey(item any, elem reflect.Type, ext fieldExt) (string, bool) {
	m, ok := item.(map[string]any)
	if !ok {
		return "", false
	}
	keys := map[string]any{}
	for _, k := range ext.mapKeys {
		if v, ok := m[k]; ok && v != nil {
			keys[k] = v
			continue
		}
		if _, fext, ok := childOf(elem, k); ok && fext.keyDefault != nil {
			keys[k] = fext.keyDefault
		}
	}
	if len(keys) == 0 {
		return "", false
	}
	return fieldpath.Key(keys), true
}

// findItem is the index of the list item elem names, or -1.
func findItem(l []any, elem string, t reflect.Type, ext fieldExt) int {
	for i, item := range l {
		if strings.HasPrefix(elem, "k:") {
			if k, ok := itemKey(item, t.Elem(), ext); ok && k == elem {
				return i
			}
		} else if fieldpath.Value(item) == elem {
			return i
		}
	}
	return -1
}

// valueAt reads the value at p.
func valueAt(v any, t reflect.Type, ext fieldExt, p fieldpath.Path) (any, bool) {
	for _, e := range p {
		t = deref(t)
		switch {
		case strings.HasPrefix(e, "f:"):
			m, ok := v.(map[string]any)
			if !ok {
				return nil, false
			}
			if v, ok = m[e[2:]]; !ok {
				return nil, false
			}
			t, ext, _ = childOf(t, e[2:])
		default:
			l, ok := v.([]any)
			if !ok || t == nil {
				return nil, false
			}
			i := findItem(l, e, t, ext)
			if i < 0 {
				return nil, false
			}
			v, t, ext = l[i], t.Elem(), fieldExt{}
		}
	}
	return v, true
}

// mergeApplied merges an applied configuration into live: granular
// structs and maps field by field, keyed lists item by item, sets by
// union; anything else the applied value replaces.
func mergeApplied(live, applied any, t reflect.Type, ext fieldExt) any {
	t = deref(t)
	if applied == nil || t == nil || isScalarType(t) {
		return applied
	}
	switch t.Kind() {
	case reflect.Struct, reflect.Map:
		am, ok := applied.(map[string]any)
		if !ok || isAtomic(t, ext) {
			return applied
		}
		out := map[string]any{}
		if lm, ok := live.(map[string]any); ok {
			for k, v := range lm {
				out[k] = v
			}
		}
		for k, av := range am {
			ct, cext, ok := childOf(t, k)
			if !ok {
				out[k] = av
				continue
			}
			out[k] = mergeApplied(out[k], av, ct, cext)
		}
		return out
	case reflect.Slice:
		al, ok := applied.([]any)
		ll, lok := live.([]any)
		if !ok || !lok || (ext.listType != "map" && ext.listType != "set") {
			return applied
		}
		out := append([]any(nil), ll...)
		for _, item := range al {
			var elem string
			if ext.listType == "map" {
				k, ok := itemKey(item, t.Elem(), ext)
				if !ok {
					return applied
				}
				elem = k
			} else {
				elem = fieldpath.Value(item)
			}
			if i := findItem(out, elem, t, ext); i >= 0 {
				out[i] = mergeApplied(out[i], item, t.Elem(), fieldExt{})
			} else {
				out = append(out, item)
			}
		}
		return out
	}
	return applied
}

// removeAt deletes the field, item or set member at p from v.
func removeAt(v any, t reflect.Type, ext fieldExt, p fieldpath.Path) any {
	if len(p) == 0 {
		return v
	}
	t = deref(t)
	e := p[0]
	if strings.HasPrefix(e, "f:") {
		m, ok := v.(map[string]any)
		if !ok {
			return v
		}
		name := e[2:]
		if len(p) == 1 {
			delete(m, name)
			return m
		}
		if c, ok := m[name]; ok {
			ct, cext, _ := childOf(t, name)
			m[name] = removeAt(c, ct, cext, p[1:])
		}
		return m
	}
	l, ok := v.([]any)
	if !ok || t == nil {
		return v
	}
	i := findItem(l, e, t, ext)
	if i < 0 {
		return v
	}
	if len(p) == 1 {
		return append(append([]any(nil), l[:i]...), l[i+1:]...)
	}
	l[i] = removeAt(l[i], t.Elem(), fieldExt{}, p[1:])
	return l
}
