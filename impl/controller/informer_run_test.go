package controller_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/impl/controller"
	"github.com/converge-dev/converge/impl/controller/controllertest"
)

// runInformer starts Run on a fake clock and returns a stop function that
// waits for Run to return.
func runInformer(t *testing.T, ctx context.Context, lw controller.ListWatcher, clock controller.Clock) (*controller.Informer, *recorder, func() error) {
	t.Helper()
	inf := controller.NewInformer(lw, controller.InformerConfig{Resource: "pods", Clock: clock, MinBackoff: time.Second, MaxBackoff: 4 * time.Second})
	rec := newRecorder()
	inf.AddHandler(rec.handler)
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- inf.Run(runCtx) }()
	return inf, rec, func() error { cancel(); return <-done }
}

func TestRunListsThenAppliesWatchEvents(t *testing.T) {
	ctx := testCtx(t)
	lw := controllertest.NewFakeListWatcher()
	lw.Put("pods", pod("ns", "b"))
	lw.Put("pods", pod("ns", "a"))
	inf, rec, stop := runInformer(t, ctx, lw, controllertest.NewFakeClock(time.Unix(0, 0)))

	require.NoError(t, inf.WaitForSync(ctx))
	// Handlers heard the initial list in key order before HasSynced.
	assert.Equal(t, []string{
		"ADDED ns/a rv=2 rev=2 cached=true",
		"ADDED ns/b rv=1 rev=2 cached=true",
	}, rec.all())
	rec.next(t, ctx)
	rec.next(t, ctx)

	r := lw.Put("pods", pod("ns", "c"))
	assert.Equal(t, "ADDED ns/c rv=3 rev=3 cached=true", rec.next(t, ctx))
	require.NoError(t, inf.WaitRev(ctx, r))
	assert.Equal(t, r, inf.LastRev())
	require.ErrorIs(t, inf.Run(ctx), controller.ErrAlreadyRunning)
	require.ErrorIs(t, inf.Start(ctx), controller.ErrAlreadyRunning)
	require.ErrorIs(t, stop(), context.Canceled)
}

func TestRunRelistsAfterGoneAndReportsTheDifference(t *testing.T) {
	ctx := testCtx(t)
	clock := controllertest.NewFakeClock(time.Unix(0, 0))
	lw := controllertest.NewFakeListWatcher()
	lw.Put("pods", pod("ns", "a"))
	lw.Put("pods", pod("ns", "b"))
	lw.Put("pods", pod("ns", "same"))
	inf, rec, stop := runInformer(t, ctx, lw, clock)
	require.NoError(t, inf.WaitForSync(ctx))
	for range 3 {
		rec.next(t, ctx)
	}
	require.NoError(t, lw.WaitWatches(ctx, 1))

	lw.BreakWatches(api.NewResourceExpired("too old resource version"))
	// The informer is now waiting out its backoff; change the store meanwhile.
	require.NoError(t, clock.WaitWaiters(ctx, 1))
	require.NoError(t, lw.WaitWatches(ctx, 0))
	lw.Delete("pods", "ns", "a")
	lw.Put("pods", pod("ns", "b", "v=2"))
	last := lw.Put("pods", pod("ns", "c"))
	lw.Compact()
	clock.Advance(time.Second)

	got := []string{rec.next(t, ctx), rec.next(t, ctx), rec.next(t, ctx)}
	assert.Equal(t, []string{
		"DELETED ns/a rv=1 rev=6 cached=false",
		"MODIFIED ns/b rv=5 rev=6 cached=true",
		"ADDED ns/c rv=6 rev=6 cached=true",
	}, got)
	require.NoError(t, inf.WaitRev(ctx, last))
	assert.Equal(t, []string{"ns/b@5", "ns/c@6", "ns/same@3"}, keys(inf.Cache().List()))

	// And it watches again from the new list revision.
	require.NoError(t, lw.WaitWatches(ctx, 1))
	lw.Put("pods", pod("ns", "d"))
	assert.Equal(t, "ADDED ns/d rv=7 rev=7 cached=true", rec.next(t, ctx))
	require.ErrorIs(t, stop(), context.Canceled)
}

func TestRunRetriesAFailedListWithBackoff(t *testing.T) {
	ctx := testCtx(t)
	clock := controllertest.NewFakeClock(time.Unix(0, 0))
	lw := controllertest.NewFakeListWatcher()
	lw.Put("pods", pod("ns", "a"))
	lw.FailNextList(errors.New("apiserver down"))
	inf, rec, stop := runInformer(t, ctx, lw, clock)

	require.NoError(t, clock.WaitWaiters(ctx, 1))
	assert.False(t, inf.HasSynced())
	clock.Advance(time.Second)
	require.NoError(t, inf.WaitForSync(ctx))
	assert.Equal(t, "ADDED ns/a rv=1 rev=1 cached=true", rec.next(t, ctx))
	require.ErrorIs(t, stop(), context.Canceled)
}
