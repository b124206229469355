package api

import (
	"encoding/json"
	"reflect"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"pgregory.net/rapid"
)

// checkAppendJSON: where appendJSON encodes, it writes exactly what
// json.Marshal writes, byte for byte.
func checkAppendJSON[T any](t *rapid.T) {
	v := rapid.Make[T]().Draw(t, "v")
	setTimes(t, reflect.ValueOf(&v).Elem())
	setQuantities(t, reflect.ValueOf(&v).Elem())
	setRawJSON(t, reflect.ValueOf(&v).Elem())
	want, err := json.Marshal(&v)
	got, ok := appendJSON(nil, encPlanOf(reflect.TypeFor[T]()), unsafe.Pointer(&v))
	if !ok {
		return
	}
	require.NoError(t, err, "encoded what encoding/json refuses")
	require.Equal(t, string(want), string(got))
}

// TestAppendJSONIsEncodingJSON covers every stored kind with values rapid
// makes up, as TestCanonicalizeIsTheJSONRoundTrip does.
func TestAppendJSONIsEncodingJSON(t *testing.T) {
	t.Run("Pod", rapid.MakeCheck(checkAppendJSON[Pod]))
	t.Run("Node", rapid.MakeCheck(checkAppendJSON[Node]))
	t.Run("Deployment", rapid.MakeCheck(checkAppendJSON[Deployment]))
	t.Run("ReplicaSet", rapid.MakeCheck(checkAppendJSON[ReplicaSet]))
	t.Run("Service", rapid.MakeCheck(checkAppendJSON[Service]))
	t.Run("Endpoints", rapid.MakeCheck(checkAppendJSON[Endpoints]))
	t.Run("Event", rapid.MakeCheck(checkAppendJSON[Event]))
	t.Run("Namespace", rapid.MakeCheck(checkAppendJSON[Namespace]))
	t.Run("Binding", rapid.MakeCheck(checkAppendJSON[Binding]))
}

// Strings are quoted as encoding/json quotes them, HTML escaping on.
func TestAppendStringIsEncodingJSON(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := rapid.OneOf(rapid.String(), rapid.StringOf(rapid.RuneFrom([]rune("<>&\\\"\b\f\n\r\t\x00\x1f\x7f\u2028\u2029\ufffdé")))).Draw(t, "s")
		if rapid.Bool().Draw(t, "bad UTF-8") {
			s += "\xff" + s + "\xe2\x80"
		}
		want, err := json.Marshal(s)
		require.NoError(t, err)
		require.Equal(t, string(want), string(appendString(nil, s)))
	})
}

// Marshal encodes what converge writes itself, compact managedFields
// included, and hands raw JSON that encoding/json would compact to it.
func TestMarshalWritesWhatEncodingJSONWrites(t *testing.T) {
	p := fixturePod(t)
	got, err := Marshal(p)
	require.NoError(t, err)
	want, err := json.Marshal(p)
	require.NoError(t, err)
	require.Equal(t, string(want), string(got))
	_, ok := appendJSON(nil, encPlanOf(reflect.TypeOf(*p)), unsafe.Pointer(p))
	require.True(t, ok, "a pod is encoded here")

	p.ManagedFields = []ManagedFieldsEntry{{Manager: "kubectl", FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:x":{}}`)}}}
	_, ok = appendJSON(nil, encPlanOf(reflect.TypeOf(*p)), unsafe.Pointer(p))
	require.True(t, ok, "compact managedFields are encoded here")

	p.ManagedFields = []ManagedFieldsEntry{{Manager: "kubectl", FieldsV1: &metav1.FieldsV1{Raw: []byte(`{ "f:x": {} }`)}}}
	_, ok = appendJSON(nil, encPlanOf(reflect.TypeOf(*p)), unsafe.Pointer(p))
	require.False(t, ok)
	got, err = Marshal(p)
	require.NoError(t, err)
	require.Contains(t, string(got), `"fieldsV1":{"f:x":{}}`)
}
