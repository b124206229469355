package controller_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/converge-dev/converge/impl/controller"
	"github.com/converge-dev/converge/impl/controller/controllertest"
)

func fakeQueue() (*controller.Queue, *controllertest.FakeClock) {
	clock := controllertest.NewFakeClock(time.Unix(0, 0))
	return controller.NewQueue(controller.QueueConfig{Clock: clock}), clock
}

func TestQueueDeduplicatesAndKeepsFirstAddOrder(t *testing.T) {
	q, _ := fakeQueue()
	for _, k := range []string{"a", "b", "a", "c", "b"} {
		q.Add(k)
	}
	assert.Equal(t, []string{"a", "b", "c"}, q.Keys())
	assert.Equal(t, 3, q.Len())
	ctx := testCtx(t)
	for _, want := range []string{"a", "b", "c"} {
		k, shut := q.Get(ctx)
		require.False(t, shut)
		assert.Equal(t, want, k)
	}
	assert.Equal(t, 0, q.Len())
}

func TestQueueNeverHandsOutAKeyBeingProcessed(t *testing.T) {
	ctx := testCtx(t)
	q, _ := fakeQueue()
	q.Add("a")
	q.Add("b")
	k, _ := q.Get(ctx)
	require.Equal(t, "a", k)

	q.Add("a") // new work while a is processed
	q.Add("a")
	assert.Equal(t, []string{"b"}, q.Keys())
	assert.False(t, q.Take("a"))
	k, _ = q.Get(ctx)
	assert.Equal(t, "b", k)

	q.Done("a")
	assert.Equal(t, []string{"a"}, q.Keys(), "re-added once, at Done")
	q.Done("b")
	assert.Equal(t, []string{"a"}, q.Keys(), "b was not re-added")
}

func TestQueueGetBlocksUntilAddAndStopsOnShutDown(t *testing.T) {
	ctx := testCtx(t)
	q, _ := fakeQueue()
	got := make(chan string)
	go func() {
		k, _ := q.Get(ctx)
		got <- k
	}()
	q.Add("x")
	assert.Equal(t, "x", <-got)

	shut := make(chan bool)
	go func() {
		_, s := q.Get(ctx)
		shut <- s
	}()
	q.ShutDown()
	assert.True(t, <-shut)
	q.Add("y")
	assert.Equal(t, 0, q.Len(), "adds after ShutDown are ignored")

	q2, _ := fakeQueue()
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	_, s := q2.Get(cctx)
	assert.True(t, s)
}

func TestQueueRateLimitBacksOffExponentiallyUntilForget(t *testing.T) {
	ctx := testCtx(t)
	q, clock := fakeQueue()
	want := []time.Duration{5, 10, 20, 40, 80, 160, 320, 640, 1000, 1000}
	for n, d := range want {
		q.AddRateLimited("a")
		assert.Equal(t, n+1, q.NumRequeues("a"))
		clock.Advance(d*time.Millisecond - time.Nanosecond)
		require.Equal(t, 0, q.Len(), "retry %d too early", n+1)
		clock.Advance(time.Nanosecond)
		require.Equal(t, []string{"a"}, q.Keys(), "retry %d after %v", n+1, d)
		assert.True(t, q.IsRetry("a"))
		k, _ := q.Get(ctx)
		q.Done(k)
	}
	q.Forget("a")
	assert.Equal(t, 0, q.NumRequeues("a"))
	q.AddRateLimited("a")
	clock.Advance(5 * time.Millisecond)
	assert.Equal(t, 1, q.Len())
}

func TestQueueAddAfterKeepsTheEarliestDeadline(t *testing.T) {
	q, clock := fakeQueue()
	q.AddAfter("a", time.Second)
	q.AddAfter("a", 2*time.Second)
	q.AddAfter("b", 100*time.Millisecond)
	clock.Advance(100 * time.Millisecond)
	assert.Equal(t, []string{"b"}, q.Keys())
	clock.Advance(900 * time.Millisecond)
	assert.Equal(t, []string{"b", "a"}, q.Keys())
	q.AddAfter("c", 0)
	assert.Equal(t, []string{"b", "a", "c"}, q.Keys(), "no delay: at once")
}

func TestQueueGetWakesWhenADelayExpires(t *testing.T) {
	ctx := testCtx(t)
	q, clock := fakeQueue()
	q.AddAfter("a", time.Minute)
	got := make(chan string)
	go func() {
		k, _ := q.Get(ctx)
		got <- k
	}()
	require.NoError(t, clock.WaitWaiters(ctx, 1))
	clock.Advance(time.Minute)
	assert.Equal(t, "a", <-got)
}

func TestSteppedQueueHasNoDelaysAndMarksRetries(t *testing.T) {
	q := controller.NewQueue(controller.QueueConfig{Stepped: true})
	q.AddAfter("a", time.Hour)
	q.AddRateLimited("b")
	q.Add("c")
	assert.Equal(t, []string{"a", "b", "c"}, q.Keys())
	assert.True(t, q.IsRetry("a"))
	assert.True(t, q.IsRetry("b"))
	assert.False(t, q.IsRetry("c"))

	q.Add("a") // fresh work clears the mark, keeps the position
	assert.False(t, q.IsRetry("a"))
	q.AddRateLimited("c") // a retry never downgrades fresh work
	assert.False(t, q.IsRetry("c"))
	assert.Equal(t, []string{"a", "b", "c"}, q.Keys())

	require.True(t, q.Take("b"))
	assert.False(t, q.Take("b"))
	assert.Equal(t, []string{"a", "c"}, q.Keys())
	q.AddRateLimited("b") // while processing: back at Done, still a retry
	assert.Equal(t, []string{"a", "c"}, q.Keys())
	q.Done("b")
	assert.Equal(t, []string{"a", "c", "b"}, q.Keys())
	assert.True(t, q.IsRetry("b"))
}

func TestQueueIsBusyWhileAKeyIsQueuedOrProcessed(t *testing.T) {
	ctx := testCtx(t)
	q, _ := fakeQueue()
	assert.False(t, q.Busy())
	q.Add("a")
	assert.True(t, q.Busy(), "queued")
	k, _ := q.Get(ctx)
	assert.Equal(t, 0, q.Len())
	assert.True(t, q.Busy(), "handed out, not done")
	q.Done(k)
	assert.False(t, q.Busy())
}
