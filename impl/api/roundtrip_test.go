package api

import (
	"encoding/json"
	"reflect"
	"time"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// roundTripByJSON is the JSON round trip Canonicalize stands for.
func roundTripByJSON[T any](t require.TestingT, v T) (T, bool) {
	var out T
	b, err := json.Marshal(v)
	if err != nil {
		return out, false
	}
	require.NoError(t, json.Unmarshal(b, &out), "%s", b)
	return out, true
}

// setTimes gives every Time and MicroTime reachable from v (which rapid
// leaves zero: their fields are unexported) a time of any precision, in
// any zone, or zero.
func setTimes(t *rapid.T, v reflect.Value) {
	walk(v, func(v reflect.Value) bool {
		if v.Type() != timeType && v.Type() != microTimeType {
			return true
		}
		if !rapid.Bool().Draw(t, "zero") {
			sec := rapid.Int64Range(-62135596800, 253402300799).Draw(t, "sec")
			nsec := rapid.Int64Range(0, 999999999).Draw(t, "nsec")
			zone := time.FixedZone("z", rapid.IntRange(-12, 14).Draw(t, "zone")*3600)
			v.Field(0).Set(reflect.ValueOf(time.Unix(sec, nsec).In(zone)))
		}
		return false
	})
}

// rawSamples are raw JSON values as managedFields hold them, and the
// forms encoding/json rewrites (space, HTML characters, U+2028) or refuses.
var rawSamples = []string{
	`{"f:metadata":{"f:labels":{".":{},"f:app":{}}},"f:spec":{"f:containers":{"k:{\"name\":\"web\"}":{".":{},"f:image":{}}}}}`,
	`{}`, `null`, `[1,"a\"b",{"x":true}]`, `{ "f:x": {} }`, "{\"f:x\":\"a\n\"}\n", `{"f:a<b":{}}`, `{"f:a&b":{}}`,
	"{\"f:\u2028\":{}}", `{"f:x":`, `"unterminated`, `{"f:\u003c":{}}`,
}

// setRawJSON gives every json.RawMessage reachable from v one of
// rawSamples, or nil.
func setRawJSON(t *rapid.T, v reflect.Value) {
	walk(v, func(v reflect.Value) bool {
		if v.Type() != rawType {
			return true
		}
		v.SetBytes(nil)
		if i := rapid.IntRange(-1, len(rawSamples)-1).Draw(t, "raw"); i >= 0 {
			v.SetBytes([]byte(rawSamples[i]))
		}
		return false
	})
}

// walk calls visit on v and, while visit returns true, on everything v
// holds that JSON carries; map values are visited as settable copies and
// put back.
func walk(v reflect.Value, visit func(reflect.Value) bool) {
	if !visit(v) {
		return
	}
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			walk(v.Elem(), visit)
		}
	case reflect.Slice:
		for i := range v.Len() {
			walk(v.Index(i), visit)
		}
	case reflect.Map:
		for _, k := range v.MapKeys() {
			e := reflect.New(v.Type().Elem()).Elem()
			e.Set(v.MapIndex(k))
			walk(e, visit)
			v.SetMapIndex(k, e)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				walk(v.Field(i), visit)
			}
		}
	}
}
