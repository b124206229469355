package store_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/converge-dev/converge/impl/etcd/etcdcluster"
	"github.com/converge-dev/converge/impl/store"
	"github.com/converge-dev/converge/impl/store/storetest"
)

// Writes hears every write committed under its context, at the write's
// revision, and nothing else: not a read, not a failed write, not a write
// under another context.
func TestWritesHearTheRevisionsOfTheirContextsWrites(t *testing.T) {
	s := storetest.Store(t)
	var w store.Writes
	ctx := store.WithWrites(ctxT(t), &w)
	require.Zero(t, w.Take(), "nothing written yet")

	rev := mustCreate(t, s, pod("ns", "elsewhere"), "x") // under another context
	require.Zero(t, w.Take())

	created, err := s.Create(ctx, pod("ns", "a"), []byte("a"))
	require.NoError(t, err)
	require.Equal(t, created, w.Take(), "a create")
	require.Zero(t, w.Take(), "Take empties it")

	_, err = s.Get(ctx, pod("ns", "a"))
	require.NoError(t, err)
	_, err = s.Update(ctx, pod("ns", "a"), []byte("b"), rev) // a stale revision: refused
	require.Error(t, err)
	require.Zero(t, w.Take(), "neither a read nor a refused write")

	updated, err := s.Update(ctx, pod("ns", "a"), []byte("b"), created)
	require.NoError(t, err)
	gone, err := s.Delete(ctx, pod("ns", "a"), updated)
	require.NoError(t, err)
	require.Equal(t, gone.Rev, w.Take(), "an update then a delete: the last of them")

	generated, err := s.CreateGenerated(ctx, "pods", "ns", "web-", func(name string) ([]byte, error) { return []byte(name), nil })
	require.NoError(t, err)
	require.Equal(t, generated.Rev, w.Take(), "a create with a generated name")
}

// A store on one etcd member reads without raft's read index: the member
// answers a write once it has applied it, so its applied state already
// has every write that returned. With several members a follower may lag,
// and the store's reads stay linearizable.
func TestReadsAreSerializableOnlyOnOneMember(t *testing.T) {
	require.True(t, store.ReadsAreSerializable(storetest.Store(t)), "the embedded single member")

	c, err := etcdcluster.Start(etcdcluster.Config{Dir: t.TempDir(), Members: 3})
	require.NoError(t, err)
	t.Cleanup(c.Close)
	cli, err := c.Client()
	require.NoError(t, err)
	t.Cleanup(func() { _ = cli.Close() })
	s := store.New(cli, "/three")
	require.False(t, store.ReadsAreSerializable(s), "three members")

	// And a read after a write still sees it.
	ctx := context.Background()
	rev, err := s.Create(ctx, pod("ns", "a"), []byte("a"))
	require.NoError(t, err)
	got, err := s.Get(ctx, pod("ns", "a"))
	require.NoError(t, err)
	require.Equal(t, rev, got.Rev)
}
