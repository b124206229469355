package registry

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/impl/store"
	"github.com/converge-dev/converge/impl/store/storetest"
)

// A JSON value as encode writes it (a custom resource's) takes the splice,
// which must give the bytes encoding the decoded object would give, modulo
// key order; anything else, protobuf among it, is decoded.
func TestWithResourceVersion(t *testing.T) {
	p := &api.Pod{ObjectMeta: api.ObjectMeta{Name: "p", Namespace: "default", Labels: map[string]string{"app": "x"}},
		Spec: api.PodSpec{Containers: []api.Container{{Name: "c", Image: "nginx"}}}}
	api.Default(p)
	tm := api.TypeMeta{Kind: "Pod", APIVersion: "v1"}
	asJSON, err := api.Marshal(p)
	require.NoError(t, err)
	asProtobuf, err := encode(p)
	require.NoError(t, err)
	require.True(t, api.IsProtobuf(asProtobuf), "a built-in kind is stored as protobuf")

	for _, stored := range [][]byte{asJSON, asProtobuf} {
		got, err := withResourceVersion("pods", tm, store.Object{Value: stored, Rev: 42})
		require.NoError(t, err)
		if !api.IsProtobuf(stored) {
			require.True(t, bytes.HasPrefix(got, []byte(`{"kind":"Pod","apiVersion":"v1","metadata":{"resourceVersion":"42","name":"p"`)), "%s", got)
		}
		obj, err := decode("pods", stored, 42)
		require.NoError(t, err)
		want, err := api.Marshal(obj)
		require.NoError(t, err)
		require.JSONEq(t, string(want), string(got))
		require.Contains(t, string(got), `"resourceVersion":"42"`)
	}

	odd := []byte(`{"metadata":{"name":"p","labels":{"resourceVersion":"x"}},"kind":"Pod","apiVersion":"v1"}`)
	got, err := withResourceVersion("pods", tm, store.Object{Value: odd, Rev: 7})
	require.NoError(t, err)
	require.Contains(t, string(got), `"resourceVersion":"7"`)
	require.Contains(t, string(got), `"labels":{"resourceVersion":"x"}`)
}

// A LIST or a create's answer encodes the object kept for a protobuf value
// (Registry.wire) where there is one: it must say what decoding the value
// says. The pods are written with a watch open, so that they are kept.
func TestWireOfAKeptObjectIsTheDecodedValue(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	r := New(Config{Store: storetest.Store(t)})
	list, err := r.List(ctx, "pods", "default", ListOptions{})
	require.NoError(t, err)
	w, err := r.WatchShared(ctx, "pods", "default", api.ListMetaOf(list).ResourceVersion)
	require.NoError(t, err)

	p := &api.Pod{ObjectMeta: api.ObjectMeta{Name: "p", Namespace: "default", Labels: map[string]string{}},
		Spec: api.PodSpec{Containers: []api.Container{{Name: "c", Image: "nginx", Ports: []api.ContainerPort{}}}}}
	_, created, err := r.CreateWire(ctx, p)
	require.NoError(t, err)
	<-w
	key := store.Key{Resource: "pods", Namespace: "default", Name: "p"}
	stored, ok := r.recent.latest(key)
	require.True(t, ok)
	require.True(t, api.IsProtobuf(stored.Value))
	require.NotNil(t, r.recent.kept(stored), "written with a watch open, so kept")

	decoded, err := decode("pods", stored.Value, stored.Rev)
	require.NoError(t, err)
	want, err := api.Marshal(decoded)
	require.NoError(t, err)
	require.JSONEq(t, string(want), string(created))
	raw, ok, err := r.ListRaw(ctx, "pods", "default", ListOptions{})
	require.NoError(t, err)
	require.True(t, ok)
	require.Len(t, raw.Items, 1)
	require.JSONEq(t, string(want), string(raw.Items[0]))
	require.Contains(t, string(raw.Items[0]), `"resourceVersion":"`+formatRV(stored.Rev)+`"`)
}
