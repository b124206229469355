package controller_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/impl/controller"
	"github.com/converge-dev/converge/impl/controller/controllertest"
)

func TestStartListsWithoutCallingHandlers(t *testing.T) {
	ctx := testCtx(t)
	lw := controllertest.NewFakeListWatcher()
	lw.Put("pods", pod("ns", "b"))
	lw.Put("pods", pod("ns", "a"))
	lw.Put("nodes", &api.Node{ObjectMeta: api.ObjectMeta{Name: "n1"}})
	inf, rec := newStepped(t, lw)

	require.NoError(t, inf.Start(ctx))
	assert.True(t, inf.HasSynced())
	assert.Equal(t, int64(3), inf.LastRev())
	assert.Equal(t, []string{"ns/a@2", "ns/b@1"}, keys(inf.Cache().List()))
	assert.Empty(t, rec.all())
	assert.Equal(t, 0, inf.Pending())
}

func TestDeliverNextAppliesOneEventAtATime(t *testing.T) {
	ctx := testCtx(t)
	lw := controllertest.NewFakeListWatcher()
	inf, rec := newStepped(t, lw)
	require.NoError(t, inf.Start(ctx))

	lw.Put("pods", pod("ns", "a"))
	lw.Put("pods", pod("ns", "a", "v=2"))
	rev := lw.Put("pods", pod("ns", "b"))
	delRev, ok := lw.Delete("pods", "ns", "a")
	require.True(t, ok)

	// WaitRev only observes the buffer: nothing is applied yet.
	require.NoError(t, inf.WaitRev(ctx, delRev))
	assert.Equal(t, 4, inf.Pending())
	assert.Equal(t, int64(0), inf.LastRev())
	assert.Equal(t, 0, inf.Cache().Len())

	ev, err := inf.DeliverNext(ctx)
	require.NoError(t, err)
	assert.Equal(t, controller.Added, ev.Type)
	assert.Equal(t, int64(1), inf.LastRev())
	assert.Equal(t, []string{"ns/a@1"}, keys(inf.Cache().List()))
	assert.Equal(t, 3, inf.Pending())

	for range 3 {
		_, err := inf.DeliverNext(ctx)
		require.NoError(t, err)
	}
	assert.Equal(t, delRev, inf.LastRev())
	assert.Equal(t, []string{"ns/b@3"}, keys(inf.Cache().List()))
	assert.Equal(t, rev, int64(3))
	// Handlers saw the cache already updated; DELETED carries the last state.
	assert.Equal(t, []string{
		"ADDED ns/a rv=1 rev=1 cached=true",
		"MODIFIED ns/a rv=2 rev=2 cached=true",
		"ADDED ns/b rv=3 rev=3 cached=true",
		"DELETED ns/a rv=4 rev=4 cached=false",
	}, rec.all())
}

func TestHandlersRunInRegistrationOrder(t *testing.T) {
	ctx := testCtx(t)
	lw := controllertest.NewFakeListWatcher()
	inf := controller.NewInformer(lw, controller.InformerConfig{Resource: "pods"})
	var order []string
	inf.AddHandler(func(controller.ListWatchEvent, *controller.Cache) { order = append(order, "first") })
	inf.AddHandler(func(controller.ListWatchEvent, *controller.Cache) { order = append(order, "second") })
	require.NoError(t, inf.Start(ctx))
	lw.Put("pods", pod("ns", "a"))
	_, err := inf.DeliverNext(ctx)
	require.NoError(t, err)
	assert.Equal(t, []string{"first", "second"}, order)
}

func TestDropWatchThenRelistSkipsIntermediateEvents(t *testing.T) {
	ctx := testCtx(t)
	lw := controllertest.NewFakeListWatcher()
	inf, rec := newStepped(t, lw)
	require.NoError(t, inf.Start(ctx))
	require.NoError(t, inf.WaitRev(ctx, 0))

	r := lw.Put("pods", pod("ns", "a"))
	require.NoError(t, inf.WaitRev(ctx, r))
	inf.DropWatch()
	assert.Equal(t, 0, inf.Pending())
	_, err := inf.DeliverNext(ctx)
	require.ErrorIs(t, err, controller.ErrNoWatch)
	require.ErrorIs(t, inf.WaitRev(ctx, r+1), controller.ErrNoWatch)

	lw.Put("pods", pod("ns", "a", "v=2"))
	lw.Put("pods", pod("ns", "b"))
	last, _ := lw.Delete("pods", "ns", "b")

	require.NoError(t, inf.Relist(ctx))
	assert.Equal(t, last, inf.LastRev())
	assert.Equal(t, []string{"ns/a@2"}, keys(inf.Cache().List()))
	assert.Empty(t, rec.all(), "relist in stepped mode calls no handler")
	assert.Equal(t, 0, inf.Pending())

	// The new watch starts from the list revision.
	next := lw.Put("pods", pod("ns", "c"))
	ev, err := inf.DeliverNext(ctx)
	require.NoError(t, err)
	assert.Equal(t, next, ev.Rev)
	assert.Equal(t, []string{"ADDED ns/c rv=5 rev=5 cached=true"}, rec.all())
}

func TestGoneBreaksTheSteppedWatchButKeepsItsBuffer(t *testing.T) {
	ctx := testCtx(t)
	lw := controllertest.NewFakeListWatcher()
	inf, _ := newStepped(t, lw)
	require.NoError(t, inf.Start(ctx))
	r := lw.Put("pods", pod("ns", "a"))
	require.NoError(t, inf.WaitRev(ctx, r))
	lw.BreakWatches(api.NewResourceExpired("too old resource version"))

	err := inf.WaitRev(ctx, r+1)
	require.ErrorIs(t, err, controller.ErrWatchBroken)
	assert.True(t, inf.Broken())
	assert.Equal(t, 1, inf.Pending())

	ev, err := inf.DeliverNext(ctx)
	require.NoError(t, err)
	assert.Equal(t, "ns/a", controller.KeyOf(ev.Object))

	_, err = inf.DeliverNext(ctx)
	require.ErrorIs(t, err, controller.ErrWatchBroken)
	assert.True(t, api.IsResourceExpired(err), "cause is kept: %v", err)

	require.NoError(t, inf.Relist(ctx))
	assert.False(t, inf.Broken())
}

func TestRelistReportsAWatchThatCannotOpen(t *testing.T) {
	ctx := testCtx(t)
	lw := controllertest.NewFakeListWatcher()
	lw.Put("pods", pod("ns", "a"))
	inf, _ := newStepped(t, lw)
	lw.FailNextWatch(api.NewGone("gone"))
	err := inf.Start(ctx)
	require.ErrorIs(t, err, controller.ErrWatchBroken)
	assert.True(t, api.IsResourceExpired(err))
	assert.True(t, inf.Broken())
	assert.Equal(t, 1, inf.Cache().Len(), "the list itself was applied")

	lw.FailNextList(errors.New("boom"))
	require.Error(t, inf.Relist(ctx))
	require.NoError(t, inf.Relist(ctx))
	assert.False(t, inf.Broken())
}

func TestCompactedWatchIsBroken(t *testing.T) {
	ctx := testCtx(t)
	lw := controllertest.NewFakeListWatcher()
	inf, _ := newStepped(t, lw)
	require.NoError(t, inf.Start(ctx))
	inf.DropWatch()
	lw.Put("pods", pod("ns", "a"))
	lw.Compact()
	// A fresh watch from the old revision gets a 410 ERROR event.
	ch, err := lw.Watch(ctx, "pods", "", "0")
	require.NoError(t, err)
	ev := <-ch
	assert.Equal(t, controller.Error, ev.Type)
	assert.True(t, api.IsResourceExpired(ev.Err))
	_, open := <-ch
	assert.False(t, open)
}

func TestSteppedCallsBeforeStart(t *testing.T) {
	ctx := testCtx(t)
	inf, _ := newStepped(t, controllertest.NewFakeListWatcher())
	require.ErrorIs(t, inf.Relist(ctx), controller.ErrNotStarted)
	_, err := inf.DeliverNext(ctx)
	require.ErrorIs(t, err, controller.ErrNoWatch)
}

func TestResetEmptiesEverythingUntilRelist(t *testing.T) {
	ctx := testCtx(t)
	lw := controllertest.NewFakeListWatcher()
	lw.Put("pods", pod("ns", "a"))
	inf, _ := newStepped(t, lw)
	require.NoError(t, inf.Start(ctx))
	r := lw.Put("pods", pod("ns", "b"))
	require.NoError(t, inf.WaitRev(ctx, r))

	inf.Reset()
	assert.Equal(t, 0, inf.Cache().Len())
	assert.Equal(t, 0, inf.Pending())
	assert.Equal(t, int64(0), inf.LastRev())
	assert.False(t, inf.HasSynced())

	require.NoError(t, inf.Relist(ctx))
	assert.Equal(t, []string{"ns/a@1", "ns/b@2"}, keys(inf.Cache().List()))
	assert.Equal(t, r, inf.LastRev())
}

func TestCacheIndexAndOrder(t *testing.T) {
	ctx := testCtx(t)
	lw := controllertest.NewFakeListWatcher()
	lw.Put("pods", pod("a", "x", "app=web"))
	lw.Put("pods", pod("a-b", "x", "app=web"))
	lw.Put("pods", pod("a", "y", "app=db"))
	inf, _ := newStepped(t, lw)
	require.NoError(t, inf.Start(ctx))
	byApp := func(o api.Object) []string {
		if v, ok := api.Meta(o).Labels["app"]; ok {
			return []string{v}
		}
		return nil
	}
	require.NoError(t, inf.AddIndexer("app", byApp))
	require.ErrorIs(t, inf.AddIndexer("app", byApp), controller.ErrDuplicateIndex)

	// Sorted by namespace then name: "a" before "a-b".
	assert.Equal(t, []string{"a/x@1", "a/y@3", "a-b/x@2"}, keys(inf.Cache().List()))
	web, err := inf.Cache().ByIndex("app", "web")
	require.NoError(t, err)
	assert.Equal(t, []string{"a/x@1", "a-b/x@2"}, keys(web))

	r := lw.Put("pods", pod("a", "x", "app=db"))
	require.NoError(t, inf.WaitRev(ctx, r))
	_, err = inf.DeliverNext(ctx)
	require.NoError(t, err)
	web, _ = inf.Cache().ByIndex("app", "web")
	db, _ := inf.Cache().ByIndex("app", "db")
	assert.Equal(t, []string{"a-b/x@2"}, keys(web))
	assert.Equal(t, []string{"a/x@4", "a/y@3"}, keys(db))

	_, err = inf.Cache().ByIndex("nope", "web")
	require.ErrorIs(t, err, controller.ErrUnknownIndex)
	got, ok := inf.Cache().Get("a", "y")
	require.True(t, ok)
	assert.Equal(t, "3", api.Meta(got).ResourceVersion)
}
