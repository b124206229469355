package controller

import (
	"context"
	"errors"
	"fmt"
	"sync"
)

// Mapper turns an informer event into the Requests to reconcile.
type Mapper func(ev ListWatchEvent) []Request

// EnqueueObject is the default Mapper: the event's own object.
func EnqueueObject(ev ListWatchEvent) []Request { return []Request{RequestFor(ev.Object)} }

// Controller ties informers, a queue and a Reconciler together. The same
// value serves both drivers: Run for the running driver, ProcessKey for
// the stepped one.
type Controller struct {
	name string
	r    Reconciler
	q    *Queue

	mu        sync.Mutex
	informers []*Informer
	mappers   []Mapper
	onError   func(key string, err error)
}

// New builds a controller named name (for messages) that reconciles keys
// of q with r. A nil q gets a running-mode queue with defaults.
func New(name string, r Reconciler, q *Queue) *Controller {
	if q == nil {
		q = NewQueue(QueueConfig{})
	}
	return &Controller{name: name, r: r, q: q}
}

// Name is the controller's name.
func (c *Controller) Name() string { return c.name }

// Queue is the controller's queue.
func (c *Controller) Queue() *Queue { return c.q }

// Watch adds a handler to inf that maps each event to Requests (nil
// mapper: EnqueueObject) and adds their keys to the queue. Run waits for
// inf to sync. The informer is not started here: informers may be shared,
// so whoever owns them runs them.
func (c *Controller) Watch(inf *Informer, mapper Mapper) {
	if mapper == nil {
		mapper = EnqueueObject
	}
	c.mu.Lock()
	c.informers = append(c.informers, inf)
	c.mappers = append(c.mappers, mapper)
	c.mu.Unlock()
	inf.AddHandler(func(ev ListWatchEvent, _ *Cache) { c.enqueue(mapper(ev)) })
}

// OnError sets a function that hears every failed Reconcile (running and
// stepped), e.g. to log it.
func (c *Controller) OnError(f func(key string, err error)) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.onError = f
}

// Resync queues, through its mapper, every object cached by a watched
// informer, in cache order: what a caller does after a stepped Relist.
func (c *Controller) Resync(inf *Informer) {
	c.mu.Lock()
	var mapper Mapper
	for n, w := range c.informers {
		if w == inf {
			mapper = c.mappers[n]
		}
	}
	c.mu.Unlock()
	if mapper == nil {
		mapper = EnqueueObject
	}
	rev := inf.LastRev()
	for _, o := range inf.Cache().List() {
		c.enqueue(mapper(ListWatchEvent{Type: Modified, Object: o, Rev: rev}))
	}
}

func (c *Controller) enqueue(reqs []Request) {
	for _, r := range reqs {
		c.q.Add(r.Key())
	}
}

// Run waits for the watched informers to sync, then runs workers
// goroutines that take keys from the queue and reconcile them with the
// Reconciler's requeue rules, until ctx ends. It then shuts the queue down,
// waits for the workers and returns ctx's error.
func (c *Controller) Run(ctx context.Context, workers int) error {
	c.mu.Lock()
	infs := append([]*Informer(nil), c.informers...)
	c.mu.Unlock()
	for _, inf := range infs {
		if err := inf.WaitForSync(ctx); err != nil {
			return fmt.Errorf("controller %s: waiting for %s to sync: %w", c.name, inf.Resource(), err)
		}
	}
	workers = max(workers, 1)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				key, shutdown := c.q.Get(ctx)
				if shutdown {
					return
				}
				_, _ = c.reconcileKey(ctx, key) // errors go to OnError and the retry rules
				c.q.Done(key)
			}
		})
	}
	<-ctx.Done()
	c.q.ShutDown()
	wg.Wait()
	return ctx.Err()
}

// ProcessKey is the stepped driver's step: it takes key from the queue,
// reconciles it synchronously with the same requeue rules as Run, and
// returns the Reconciler's Result and error. If key is not ready in the
// queue it does nothing and returns an error wrapping ErrNotQueued.
func (c *Controller) ProcessKey(ctx context.Context, key string) (Result, error) {
	if !c.q.Take(key) {
		return Result{}, fmt.Errorf("controller %s: %w: %q", c.name, ErrNotQueued, key)
	}
	defer c.q.Done(key)
	return c.reconcileKey(ctx, key)
}

// reconcileKey calls the Reconciler and applies the requeue rules.
func (c *Controller) reconcileKey(ctx context.Context, key string) (Result, error) {
	req, err := ParseKey(key)
	if err != nil {
		// A malformed key can never succeed: drop it rather than retry.
		c.q.Forget(key)
		err = fmt.Errorf("controller %s: %w", c.name, err)
		c.report(key, err)
		return Result{}, err
	}
	res, err := c.call(ctx, req)
	switch {
	case err != nil:
		c.q.AddRateLimited(key)
		c.report(key, err)
	case res.RequeueAfter > 0:
		c.q.Forget(key)
		c.q.AddAfter(key, res.RequeueAfter)
	case res.Requeue:
		c.q.AddRateLimited(key)
	default:
		c.q.Forget(key)
	}
	return res, err
}

// call runs the Reconciler, turning a panic into an error so one bad
// object cannot take the component down.
func (c *Controller) call(ctx context.Context, req Request) (res Result, err error) {
	defer func() {
		if p := recover(); p != nil {
			res, err = Result{}, fmt.Errorf("controller %s: %w: %s: %v", c.name, ErrReconcilerPanic, req, p)
		}
	}()
	return c.r.Reconcile(ctx, req)
}

func (c *Controller) report(key string, err error) {
	c.mu.Lock()
	f := c.onError
	c.mu.Unlock()
	if f != nil && !errors.Is(err, context.Canceled) {
		f(key, err)
	}
}
