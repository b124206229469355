package api

import (
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"pgregory.net/rapid"
)

// checkCanonicalize: where Canonicalize succeeds, the value is what the
// JSON round trip gives. A canonical value is only read: two goroutines
// canonicalizing it at once do not race (which `go test -race` checks).
func checkCanonicalize[T any](t *rapid.T) {
	v := rapid.Make[T]().Draw(t, "v")
	setTimes(t, reflect.ValueOf(&v).Elem())
	setQuantities(t, reflect.ValueOf(&v).Elem())
	setRawJSON(t, reflect.ValueOf(&v).Elem())
	want, marshals := roundTripByJSON(t, v)
	if !Canonicalize(any(&v).(Object)) {
		return
	}
	require.True(t, marshals, "took what JSON cannot encode")
	require.Equal(t, want, v)

	if again, _ := roundTripByJSON(t, want); !reflect.DeepEqual(again, want) {
		return // a time in the first second of year 1 comes back zero, then null
	}
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() { require.True(t, Canonicalize(any(&want).(Object))) })
	}
	wg.Wait()
	require.Equal(t, v, want, "a canonical value changed")
}

// roundTripKinds are the kinds whose canonicalization rapid checks against
// the real round trips, JSON's and protobuf's.
var roundTripKinds = []struct {
	name           string
	json, protobuf func(*rapid.T)
}{
	{"Pod", checkCanonicalize[Pod], checkCanonicalizeProtobuf[Pod]},
	{"Node", checkCanonicalize[Node], checkCanonicalizeProtobuf[Node]},
	{"Deployment", checkCanonicalize[Deployment], checkCanonicalizeProtobuf[Deployment]},
	{"ReplicaSet", checkCanonicalize[ReplicaSet], checkCanonicalizeProtobuf[ReplicaSet]},
	{"Service", checkCanonicalize[Service], checkCanonicalizeProtobuf[Service]},
	{"Endpoints", checkCanonicalize[Endpoints], checkCanonicalizeProtobuf[Endpoints]},
	{"EndpointSlice", checkCanonicalize[EndpointSlice], checkCanonicalizeProtobuf[EndpointSlice]},
	{"Event", checkCanonicalize[Event], checkCanonicalizeProtobuf[Event]},
	{"Namespace", checkCanonicalize[Namespace], checkCanonicalizeProtobuf[Namespace]},
}

func TestCanonicalizeIsTheJSONRoundTrip(t *testing.T) {
	for _, k := range roundTripKinds {
		t.Run(k.name, rapid.MakeCheck(k.json))
	}
}

func TestCanonicalizeTakesConvergesObjects(t *testing.T) {
	p := fixturePod(t)
	p.CreationTimestamp = Time{Time: time.Date(2026, 1, 2, 3, 4, 5, 678, time.FixedZone("x", 3600))}
	p.DeletionTimestamp = &Time{}
	p.Labels = map[string]string{}
	p.Status.Conditions = []PodCondition{}
	want, _ := roundTripByJSON(t, p)
	require.True(t, Canonicalize(p))
	require.Equal(t, want, p)
	require.Nil(t, p.DeletionTimestamp, "a pointer to a zero time is null")
	require.Nil(t, p.Labels, "an empty map that is omitempty is left out")

	bad := &Pod{ObjectMeta: ObjectMeta{Name: "bad\xff"}}
	require.False(t, Canonicalize(bad), "invalid UTF-8 is replaced by the encoding")
	bad = &Pod{ObjectMeta: ObjectMeta{ManagedFields: []ManagedFieldsEntry{{FieldsV1: &metav1.FieldsV1{Raw: []byte(`{ "f:x": {} }`)}}}}}
	require.False(t, Canonicalize(bad), "raw JSON is compacted by the encoding")
	ok := &Pod{ObjectMeta: ObjectMeta{ManagedFields: []ManagedFieldsEntry{{FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:x":{}}`)}}}}}
	require.True(t, Canonicalize(ok), "compact raw JSON is kept as it is")
	require.False(t, Canonicalize((*Pod)(nil)))
}
