package crdgen

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"

	utiljson "k8s.io/apimachinery/pkg/util/json"
	"pgregory.net/rapid"
)

// freeJSON draws any JSON value where the schema preserves unknown
// fields: scalars first (so it shrinks to false), objects and arrays
// while nesting allows. Floats are left out: an integral float comes back
// from the apiserver as int64, and other floats add nothing scalars lack.
func (b *builder) freeJSON(depth int) *rapid.Generator[any] {
	if g, ok := b.free[depth]; ok {
		return g
	}
	gens := []*rapid.Generator[any]{
		rapid.Bool().AsAny(),
		rapid.Int64().AsAny(),
		rapid.StringN(0, 8, -1).AsAny(),
		rapid.Just[any](nil),
	}
	if depth < b.o.maxDepth {
		gens = append(gens, b.freeObject(depth+1), rapid.Map(rapid.SliceOfN(b.freeJSON(depth+1), 0, b.o.maxItems), func(l []any) any { return l }))
	}
	g := rapid.OneOf(gens...)
	b.free[depth] = g
	return g
}

// freeObject draws a small JSON object, shrinking to {}.
func (b *builder) freeObject(depth int) *rapid.Generator[any] {
	lo, hi := b.limit(depth, nil, nil)
	m := rapid.MapOfN(keyGen(nil), b.freeJSON(depth), lo, hi)
	return rapid.Map(m, func(m map[string]any) any { return m })
}

// normalize turns a WithField value into the apiserver's JSON form
// (map[string]any, []any, string, bool, int64, float64, nil), which
// validation and runtime.DeepCopyJSON require.
func normalize(v any) any {
	switch x := v.(type) {
	case nil, bool, string, int64, absent:
		return v
	case float64:
		return canonicalFloat(x)
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = normalize(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = normalize(e)
		}
		return out
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return rv.Int()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		if u := rv.Uint(); u <= math.MaxInt64 {
			return int64(u)
		}
		return float64(rv.Uint())
	case reflect.Float32, reflect.Float64:
		return canonicalFloat(rv.Float())
	}
	data, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("crdgen: a WithField value %#v does not encode as JSON: %v", v, err))
	}
	var out any
	if err := utiljson.Unmarshal(data, &out); err != nil {
		panic(fmt.Sprintf("crdgen: a WithField value %#v does not decode from JSON: %v", v, err))
	}
	return out
}

// canonicalFloat is f as the apiserver's decoder returns it: int64 when
// integral and exact, float64 otherwise.
func canonicalFloat(f float64) any {
	if f == math.Trunc(f) && math.Abs(f) <= 1<<53 {
		return int64(f)
	}
	return f
}
