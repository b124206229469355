package controller_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/converge-dev/converge/impl/api"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/converge-dev/converge/impl/controller"
	"github.com/converge-dev/converge/impl/controller/controllertest"
)

// scripted answers each Reconcile with the next scripted outcome.
type scripted struct {
	mu    sync.Mutex
	calls []controller.Request
	out   []func() (controller.Result, error)
}

func (s *scripted) Reconcile(_ context.Context, req controller.Request) (controller.Result, error) {
	s.mu.Lock()
	s.calls = append(s.calls, req)
	f := s.out[0]
	s.out = s.out[1:]
	s.mu.Unlock()
	return f()
}

var _ controller.Reconciler = (*scripted)(nil)

func ret(r controller.Result, err error) func() (controller.Result, error) {
	return func() (controller.Result, error) { return r, err }
}

func TestProcessKeyAppliesTheRequeueRules(t *testing.T) {
	ctx := testCtx(t)
	boom := errors.New("boom")
	r := &scripted{out: []func() (controller.Result, error){
		ret(controller.Result{RequeueAfter: time.Hour}, boom), // error wins over Result
		ret(controller.Result{Requeue: true}, nil),
		ret(controller.Result{RequeueAfter: time.Minute}, nil), // forgets the backoff
		ret(controller.Result{}, nil),
		func() (controller.Result, error) { panic("bad object") },
	}}
	q := controller.NewQueue(controller.QueueConfig{Stepped: true})
	c := controller.New("test", r, q)
	var reported []string
	c.OnError(func(key string, err error) { reported = append(reported, key) })

	_, err := c.ProcessKey(ctx, "ns/a")
	require.ErrorIs(t, err, controller.ErrNotQueued)
	assert.Empty(t, r.calls, "a key not queued is not reconciled")

	q.Add("ns/a")
	_, err = c.ProcessKey(ctx, "ns/a")
	require.ErrorIs(t, err, boom)
	assert.Equal(t, []string{"ns/a"}, q.Keys())
	assert.True(t, q.IsRetry("ns/a"))
	assert.Equal(t, 1, q.NumRequeues("ns/a"))

	res, err := c.ProcessKey(ctx, "ns/a")
	require.NoError(t, err)
	assert.True(t, res.Requeue)
	assert.True(t, q.IsRetry("ns/a"))
	assert.Equal(t, 2, q.NumRequeues("ns/a"))

	_, err = c.ProcessKey(ctx, "ns/a")
	require.NoError(t, err)
	assert.Equal(t, []string{"ns/a"}, q.Keys())
	assert.True(t, q.IsRetry("ns/a"))
	assert.Equal(t, 0, q.NumRequeues("ns/a"))

	_, err = c.ProcessKey(ctx, "ns/a")
	require.NoError(t, err)
	assert.Empty(t, q.Keys())

	q.Add("ns/a")
	_, err = c.ProcessKey(ctx, "ns/a")
	require.ErrorIs(t, err, controller.ErrReconcilerPanic)
	assert.True(t, q.IsRetry("ns/a"))

	assert.Equal(t, []controller.Request{{Namespace: "ns", Name: "a"}, {Namespace: "ns", Name: "a"},
		{Namespace: "ns", Name: "a"}, {Namespace: "ns", Name: "a"}, {Namespace: "ns", Name: "a"}}, r.calls)
	assert.Equal(t, []string{"ns/a", "ns/a"}, reported)
}

func TestProcessKeyDropsAMalformedKey(t *testing.T) {
	ctx := testCtx(t)
	r := &scripted{}
	q := controller.NewQueue(controller.QueueConfig{Stepped: true})
	c := controller.New("test", r, q)
	q.Add("a/b/c")
	_, err := c.ProcessKey(ctx, "a/b/c")
	require.ErrorIs(t, err, controller.ErrBadKey)
	assert.Empty(t, q.Keys())
	assert.Empty(t, r.calls)
}

func TestParseKeyIsTheInverseOfKey(t *testing.T) {
	for _, req := range []controller.Request{{Namespace: "ns", Name: "a"}, {Name: "node-1"}} {
		got, err := controller.ParseKey(req.Key())
		require.NoError(t, err)
		assert.Equal(t, req, got)
	}
	for _, bad := range []string{"", "/a", "ns/", "a/b/c"} {
		_, err := controller.ParseKey(bad)
		require.ErrorIs(t, err, controller.ErrBadKey, "%q", bad)
	}
}

func TestWatchMapsEventsToKeysAndResyncRequeuesTheCache(t *testing.T) {
	ctx := testCtx(t)
	lw := controllertest.NewFakeListWatcher()
	lw.Put("pods", pod("ns", "web-1", "owner=web"))
	inf := controller.NewInformer(lw, controller.InformerConfig{Resource: "pods"})
	q := controller.NewQueue(controller.QueueConfig{Stepped: true})
	c := controller.New("rs", controller.ReconcilerFunc(func(context.Context, controller.Request) (controller.Result, error) {
		return controller.Result{}, nil
	}), q)
	toOwner := func(ev controller.ListWatchEvent) []controller.Request {
		m := api.Meta(ev.Object)
		return []controller.Request{{Namespace: m.Namespace, Name: m.Labels["owner"]}}
	}
	c.Watch(inf, toOwner)
	require.NoError(t, inf.Start(ctx))
	assert.Empty(t, q.Keys(), "stepped start calls no handler")

	c.Resync(inf)
	assert.Equal(t, []string{"ns/web"}, q.Keys())
	_, err := c.ProcessKey(ctx, "ns/web")
	require.NoError(t, err)

	lw.Put("pods", pod("ns", "db-1", "owner=db"))
	lw.Put("pods", pod("ns", "web-2", "owner=web"))
	for range 2 {
		_, err := inf.DeliverNext(ctx)
		require.NoError(t, err)
	}
	assert.Equal(t, []string{"ns/db", "ns/web"}, q.Keys())
}

func TestRunRetriesAnErrorAfterTheBackoff(t *testing.T) {
	ctx := testCtx(t)
	clock := controllertest.NewFakeClock(time.Unix(0, 0))
	q := controller.NewQueue(controller.QueueConfig{Clock: clock})
	done := make(chan controller.Request, 2)
	r := &scripted{out: []func() (controller.Result, error){
		ret(controller.Result{}, errors.New("transient")),
		func() (controller.Result, error) { return controller.Result{}, nil },
	}}
	c := controller.New("test", controller.ReconcilerFunc(func(ctx context.Context, req controller.Request) (controller.Result, error) {
		defer func() { done <- req }()
		return r.Reconcile(ctx, req)
	}), q)
	runCtx, cancel := context.WithCancel(ctx)
	stopped := make(chan error)
	go func() { stopped <- c.Run(runCtx, 2) }()

	q.Add("ns/a")
	<-done
	require.NoError(t, clock.WaitWaiters(ctx, 1)) // a worker waits for the retry
	assert.Equal(t, 0, q.Len())
	clock.Advance(5 * time.Millisecond)
	<-done
	assert.Len(t, r.calls, 2)
	cancel()
	require.ErrorIs(t, <-stopped, context.Canceled)
}

// TestConcurrentRunConverges drives informer, queue and workers for real
// (run it with -race): every key is reconciled at its final state, and no
// key is ever reconciled by two workers at once.
func TestConcurrentRunConverges(t *testing.T) {
	ctx := testCtx(t)
	lw := controllertest.NewFakeListWatcher()
	inf := controller.NewInformer(lw, controller.InformerConfig{Resource: "pods", MinBackoff: time.Millisecond})

	const nKeys, nWrites = 8, 200
	var (
		mu       sync.Mutex
		inFlight = map[string]bool{}
		overlap  []string
		seen     = map[string]string{} // key -> last resourceVersion reconciled
		changed  = make(chan struct{}, 1)
	)
	r := controller.ReconcilerFunc(func(_ context.Context, req controller.Request) (controller.Result, error) {
		mu.Lock()
		if inFlight[req.Key()] {
			overlap = append(overlap, req.Key())
		}
		inFlight[req.Key()] = true
		mu.Unlock()
		rv := ""
		if o, ok := inf.Cache().Get(req.Namespace, req.Name); ok {
			rv = api.Meta(o).ResourceVersion
		}
		mu.Lock()
		inFlight[req.Key()] = false
		seen[req.Key()] = rv
		mu.Unlock()
		select {
		case changed <- struct{}{}:
		default:
		}
		return controller.Result{}, nil
	})
	c := controller.New("test", r, nil)
	c.Watch(inf, nil)

	runCtx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() { _ = inf.Run(runCtx) })
	wg.Go(func() { _ = c.Run(runCtx, 4) })

	final := map[string]string{}
	for n := range nWrites {
		name := fmt.Sprintf("p%d", n%nKeys)
		rev := lw.Put("pods", pod("ns", name, fmt.Sprintf("n=%d", n)))
		final["ns/"+name] = fmt.Sprint(rev)
		if n == nWrites/2 {
			lw.BreakWatches(errors.New("connection reset"))
		}
	}
	for {
		mu.Lock()
		converged := len(seen) == nKeys
		for k, rv := range final {
			converged = converged && seen[k] == rv
		}
		mu.Unlock()
		if converged {
			break
		}
		select {
		case <-changed:
		case <-ctx.Done():
			t.Fatalf("did not converge: seen %v want %v", seen, final)
		}
	}
	cancel()
	wg.Wait()
	assert.Empty(t, overlap)
}
