package api

import (
	"maps"
	"reflect"
	"sync"

	"k8s.io/apimachinery/pkg/runtime"
)

// DeepCopy returns a copy of v that shares no memory with it, so a cache
// can hand out objects that callers may mutate. Nil and empty collections
// stay as they are. It works on any converge type: objects, lists, specs.
// Kubernetes' own types copy themselves with their generated DeepCopy, a
// quarter of the reflective copy's cost; the reflective copy serves the
// rest (custom objects) and a typed nil.
func DeepCopy[T any](v T) T {
	if o, ok := any(v).(runtime.Object); ok {
		if c, ok := o.DeepCopyObject().(T); ok {
			return c
		}
	} else if in, ok := any(&v).(interface{ DeepCopyInto(*T) }); ok {
		var out T
		in.DeepCopyInto(&out)
		return out
	}
	src := reflect.ValueOf(&v).Elem()
	dst := reflect.New(src.Type()).Elem()
	copyValue(dst, src)
	return dst.Interface().(T)
}

// copyValue deep-copies src into dst, which must be settable and of the
// same type.
func copyValue(dst, src reflect.Value) {
	switch src.Kind() {
	case reflect.Pointer:
		if src.IsNil() {
			return
		}
		p := reflect.New(src.Type().Elem())
		if planOf(src.Type().Elem()).deep {
			copyValue(p.Elem(), src.Elem())
		} else {
			p.Elem().Set(src.Elem())
		}
		dst.Set(p)
	case reflect.Interface:
		if src.IsNil() {
			return
		}
		inner := reflect.New(src.Elem().Type()).Elem()
		copyValue(inner, src.Elem())
		dst.Set(inner)
	case reflect.Slice:
		if src.IsNil() {
			return
		}
		n := src.Len()
		s := reflect.MakeSlice(src.Type(), n, n)
		if planOf(src.Type().Elem()).deep {
			for i := 0; i < n; i++ {
				copyValue(s.Index(i), src.Index(i))
			}
		} else {
			reflect.Copy(s, src)
		}
		dst.Set(s)
	case reflect.Map:
		if src.IsNil() {
			return
		}
		if m, ok := src.Interface().(map[string]string); ok {
			// Labels and annotations: most maps an object holds.
			dst.Set(reflect.ValueOf(maps.Clone(m)))
			return
		}
		if l, ok := src.Interface().(ResourceList); ok {
			dst.Set(reflect.ValueOf(l.DeepCopy()))
			return
		}
		m := reflect.MakeMapWithSize(src.Type(), src.Len())
		deep := planOf(src.Type().Elem()).deep
		iter := src.MapRange()
		for iter.Next() {
			val := iter.Value()
			if deep {
				val = reflect.New(val.Type()).Elem()
				copyValue(val, iter.Value())
			}
			m.SetMapIndex(iter.Key(), val)
		}
		dst.Set(m)
	case reflect.Struct:
		if src.Type() == quantityType {
			// Its unexported decimal is a pointer its methods write through.
			dst.Set(reflect.ValueOf(src.Interface().(Quantity).DeepCopy()))
			return
		}
		// Whole-value assignment first carries unexported fields (time.Time's
		// wall clock and location, which are immutable) and every field that
		// holds no references; the rest are then replaced by deep copies.
		dst.Set(src)
		for _, i := range planOf(src.Type()).fields {
			copyValue(dst.Field(i), src.Field(i))
		}
	default:
		dst.Set(src)
	}
}

// copyPlan says how to copy values of one type: deep is whether a plain
// assignment would share memory, and fields, for a struct, lists the
// exported fields that would.
type copyPlan struct {
	deep   bool
	fields []int
}

// copyPlans caches a plan per type: working them out with reflection on
// every copy cost more than the copying.
var copyPlans sync.Map // reflect.Type -> *copyPlan

func planOf(t reflect.Type) *copyPlan {
	if p, ok := copyPlans.Load(t); ok {
		return p.(*copyPlan)
	}
	p := buildPlan(t, map[reflect.Type]bool{})
	copyPlans.Store(t, p)
	return p
}

// buildPlan works out t's plan; visiting holds the types being worked out,
// which a recursive type meets again and counts as deep.
func buildPlan(t reflect.Type, visiting map[reflect.Type]bool) *copyPlan {
	switch t.Kind() {
	case reflect.Pointer, reflect.Interface, reflect.Slice, reflect.Map:
		return &copyPlan{deep: true}
	case reflect.Struct:
		if t == quantityType {
			return &copyPlan{deep: true}
		}
		if visiting[t] {
			return &copyPlan{deep: true}
		}
		visiting[t] = true
		defer delete(visiting, t)
		p := &copyPlan{}
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if f.IsExported() && buildPlan(f.Type, visiting).deep {
				p.fields = append(p.fields, i)
			}
		}
		p.deep = len(p.fields) > 0
		return p
	}
	return &copyPlan{}
}
