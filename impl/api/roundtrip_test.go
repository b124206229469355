package api

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// roundTripByJSON is what RoundTripCopy stands for.
func roundTripByJSON[T any](t require.TestingT, v T) (T, bool) {
	var out T
	b, err := json.Marshal(v)
	if err != nil {
		return out, false
	}
	require.NoError(t, json.Unmarshal(b, &out), "%s", b)
	return out, true
}

// checkRoundTrip: where RoundTripCopy gives a copy, it is exactly what
// the JSON round trip gives, and it shares no memory with v.
func checkRoundTrip[T any](t *rapid.T) {
	v := rapid.Make[T]().Draw(t, "v")
	setTimes(t, reflect.ValueOf(&v).Elem())
	dropRawJSON(reflect.ValueOf(&v).Elem())
	want, marshals := roundTripByJSON(t, v)
	got, ok := RoundTripCopy(v)
	if !ok {
		return
	}
	require.True(t, marshals, "copied what JSON cannot encode")
	require.Equal(t, want, got)
	before, _ := json.Marshal(v)
	scribble(reflect.ValueOf(&got).Elem())
	after, _ := json.Marshal(v)
	require.Equal(t, string(before), string(after), "the copy shares memory with the original")
}

// TestRoundTripCopyIsTheJSONRoundTrip covers every stored kind with values
// rapid makes up: nil and empty collections, pointers to zero values,
// strings of any runes, times of any precision and zone. (Raw JSON, which
// the copy refuses, is left out, or it would refuse nearly every value.)
func TestRoundTripCopyIsTheJSONRoundTrip(t *testing.T) {
	t.Run("Pod", rapid.MakeCheck(checkRoundTrip[Pod]))
	t.Run("Node", rapid.MakeCheck(checkRoundTrip[Node]))
	t.Run("Deployment", rapid.MakeCheck(checkRoundTrip[Deployment]))
	t.Run("ReplicaSet", rapid.MakeCheck(checkRoundTrip[ReplicaSet]))
	t.Run("Service", rapid.MakeCheck(checkRoundTrip[Service]))
	t.Run("Endpoints", rapid.MakeCheck(checkRoundTrip[Endpoints]))
	t.Run("Event", rapid.MakeCheck(checkRoundTrip[Event]))
	t.Run("Namespace", rapid.MakeCheck(checkRoundTrip[Namespace]))
}

// The objects converge writes are ones it copies: a decoded fixture, and
// one with times of sub-second precision, pointers to zero times and
// empty collections.
func TestRoundTripCopyTakesConvergesObjects(t *testing.T) {
	p := fixturePod(t)
	p.CreationTimestamp = Time{time.Date(2026, 1, 2, 3, 4, 5, 678, time.FixedZone("x", 3600))}
	p.DeletionTimestamp = &Time{}
	p.Labels = map[string]string{}
	p.Status.Conditions = []PodCondition{}
	want, _ := roundTripByJSON(t, p)
	got, ok := RoundTripCopy(p)
	require.True(t, ok)
	require.Equal(t, want, got)
	asObject, ok := RoundTripCopy(Object(p))
	require.True(t, ok, "an Object is copied as its own type")
	require.Equal(t, want, asObject)
	require.Nil(t, got.DeletionTimestamp, "a pointer to a zero time is null")
	require.Nil(t, got.Labels, "an empty map that is omitempty is left out")
}

func TestRoundTripCopyRefusesWhatItCannotReproduce(t *testing.T) {
	p := &Pod{ObjectMeta: ObjectMeta{Name: "bad\xff"}}
	_, ok := RoundTripCopy(p)
	require.False(t, ok, "invalid UTF-8 is replaced by the encoding")
	p = &Pod{ObjectMeta: ObjectMeta{ManagedFields: []ManagedFieldsEntry{{FieldsV1: json.RawMessage(`{ "f:x": {} }`)}}}}
	_, ok = RoundTripCopy(p)
	require.False(t, ok, "raw JSON is compacted by the encoding")
	_, ok = RoundTripCopy(map[string]any{"a": 1})
	require.False(t, ok, "an interface's value comes back as a different type")
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

// scribble changes every string, number and map reachable from v.
func scribble(v reflect.Value) {
	walk(v, func(v reflect.Value) bool {
		switch v.Kind() {
		case reflect.Map:
			if !v.IsNil() {
				v.SetMapIndex(reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem())
			}
		case reflect.String:
			v.SetString(v.String() + "!")
		case reflect.Int, reflect.Int32, reflect.Int64:
			v.SetInt(v.Int() + 1)
		case reflect.Bool:
			v.SetBool(!v.Bool())
		}
		return true
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
