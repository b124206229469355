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

// dropRawJSON empties every json.RawMessage reachable from v.
func dropRawJSON(v reflect.Value) {
	walk(v, func(v reflect.Value) bool {
		if v.Type() != reflect.TypeFor[json.RawMessage]() {
			return true
		}
		v.SetBytes(nil)
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
