package api

import (
	"reflect"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	discoveryv1 "k8s.io/api/discovery/v1"
	"pgregory.net/rapid"
)

// roundTripByProtobuf is the protobuf round trip CanonicalizeProtobuf
// stands for: MarshalProtobuf, then a decode into a fresh value.
func roundTripByProtobuf[T any](t require.TestingT, v *T) *T {
	b, err := MarshalProtobuf(any(v).(Object))
	require.NoError(t, err)
	require.True(t, IsProtobuf(b))
	out := new(T)
	require.NoError(t, UnmarshalProtobuf(b, any(out).(Object)))
	return out
}

// checkCanonicalizeProtobuf: where CanonicalizeProtobuf succeeds, the
// value is what the protobuf round trip gives, and canonicalizing that
// gives its round trip again.
func checkCanonicalizeProtobuf[T any](t *rapid.T) {
	v := rapid.Make[T]().Draw(t, "v")
	setTimes(t, reflect.ValueOf(&v).Elem())
	setQuantities(t, reflect.ValueOf(&v).Elem())
	setRawJSON(t, reflect.ValueOf(&v).Elem())
	want := roundTripByProtobuf(t, &v)
	if !CanonicalizeProtobuf(any(&v).(Object)) {
		return
	}
	require.Equal(t, *want, v)
	// Not always want itself: a time in the first second of year 1 comes
	// back zero.
	again := *want
	wantAgain := roundTripByProtobuf(t, &again)
	require.True(t, CanonicalizeProtobuf(any(&again).(Object)))
	require.Equal(t, *wantAgain, again)
}

func TestCanonicalizeProtobufIsTheProtobufRoundTrip(t *testing.T) {
	for _, k := range roundTripKinds {
		t.Run(k.name, rapid.MakeCheck(k.protobuf))
	}
}

// Where protobuf and JSON differ: what is empty comes back nil even where
// JSON writes it ([] for a field without omitempty), a pointer to a zero
// time comes back, and strings come back as they are.
func TestCanonicalizeProtobufDiffersFromJSONWhereUpstreamDoes(t *testing.T) {
	p := fixturePod(t)
	p.CreationTimestamp = Time{Time: time.Date(2026, 1, 2, 3, 4, 5, 678, time.FixedZone("x", 3600))}
	p.DeletionTimestamp = &Time{}
	p.Spec.Containers[0].Ports = []ContainerPort{}
	p.Labels = map[string]string{}
	p.Name = "bad\xff"
	want := roundTripByProtobuf(t, p)
	require.True(t, CanonicalizeProtobuf(p))
	require.Equal(t, want, p)
	require.NotNil(t, p.DeletionTimestamp, "a pointer to a zero time is an empty message, not null")
	require.Nil(t, p.Labels)
	require.Nil(t, p.Spec.Containers[0].Ports)
	require.Equal(t, "bad\xff", p.Name, "protobuf does not check UTF-8")
	require.Empty(t, p.Kind, "TypeMeta travels in the envelope")

	s := &EndpointSlice{Endpoints: []discoveryv1.Endpoint{}}
	require.True(t, CanonicalizeProtobuf(s))
	require.Nil(t, s.Endpoints, `upstream's empty EndpointSlice reads "endpoints": null`)
	require.False(t, CanonicalizeProtobuf(&CustomObject{}), "a custom resource has no protobuf")
}
