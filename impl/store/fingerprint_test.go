package store_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/converge-dev/converge/impl/store"
	"github.com/converge-dev/converge/impl/store/storetest"
)

// A fingerprint moves with every create, update and delete in its scope,
// and with nothing outside it.
func TestFingerprintsChangeWithTheirScopeOnly(t *testing.T) {
	t.Parallel()
	s := storetest.Store(t)
	ctx := ctxT(t)
	pods, nodes := store.Scope{Resource: "pods", Namespace: "ns"}, store.Scope{Resource: "nodes"}
	read := func() []store.Fingerprint {
		t.Helper()
		fps, rev, err := s.Fingerprints(ctx, pods, nodes)
		require.NoError(t, err)
		require.NotZero(t, rev)
		return fps
	}
	empty := read()
	require.Equal(t, store.Fingerprint{}, empty[0])

	a := store.Key{Resource: "pods", Namespace: "ns", Name: "a"}
	b := store.Key{Resource: "pods", Namespace: "ns", Name: "b"}
	revA, err := s.Create(ctx, a, []byte(`1`))
	require.NoError(t, err)
	_, err = s.Create(ctx, b, []byte(`1`))
	require.NoError(t, err)
	two := read()
	require.Equal(t, int64(2), two[0].Count)
	require.Equal(t, empty[1], two[1], "a write to pods moved the nodes' fingerprint")

	_, err = s.Create(ctx, store.Key{Resource: "nodes", Name: "n"}, []byte(`1`))
	require.NoError(t, err)
	require.Equal(t, two[0], read()[0], "a write to nodes moved the pods' fingerprint")

	_, err = s.Update(ctx, a, []byte(`2`), revA)
	require.NoError(t, err)
	updated := read()
	require.NotEqual(t, two[0], updated[0], "an update")

	// Deleting the object with the highest revision, or any other one.
	so, err := s.Get(ctx, a)
	require.NoError(t, err)
	_, err = s.Delete(ctx, a, so.Rev)
	require.NoError(t, err)
	deleted := read()
	require.NotEqual(t, updated[0], deleted[0], "a delete")
	require.Equal(t, int64(1), deleted[0].Count)

	// A create then a delete of the new object leaves the same objects,
	// and the same fingerprint.
	c := store.Key{Resource: "pods", Namespace: "ns", Name: "c"}
	revC, err := s.Create(ctx, c, []byte(`1`))
	require.NoError(t, err)
	_, err = s.Delete(ctx, c, revC)
	require.NoError(t, err)
	require.Equal(t, deleted[0], read()[0])
}
