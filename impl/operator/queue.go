package operator

import (
	"slices"
	"sync"
	"time"

	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// steppedQueue is a controller's work queue whose items are handed to the
// controller's workers only when the harness says which one: controller-
// runtime's own workers still call Reconcile and decide retries, but the
// order is the harness's, and delayed items (RequeueAfter, rate-limited
// retries) wait on the host's logical clock, not on the wall clock. It
// keeps client-go's queue contract: an item is queued once however often
// it is added, and one added while it is processed is queued again after
// Done.
type steppedQueue struct {
	limiter workqueue.TypedRateLimiter[reconcile.Request]
	now     func() time.Duration

	mu         sync.Mutex
	changed    *sync.Cond
	queued     map[reconcile.Request]bool
	processing map[reconcile.Request]bool
	due        map[reconcile.Request]time.Duration // delayed adds, by logical due time
	handed     []reconcile.Request                 // given by the harness, not yet taken by a worker
	parked     map[reconcile.Request]bool          // processing, but waiting for the harness before a write (park)
	getters    int                                 // workers blocked in Get
	shutdown   bool
}

var _ priorityqueue.PriorityQueue[reconcile.Request] = (*steppedQueue)(nil)

func newSteppedQueue(limiter workqueue.TypedRateLimiter[reconcile.Request], now func() time.Duration) *steppedQueue {
	q := &steppedQueue{limiter: limiter, now: now,
		queued: map[reconcile.Request]bool{}, processing: map[reconcile.Request]bool{}, parked: map[reconcile.Request]bool{}, due: map[reconcile.Request]time.Duration{}}
	q.changed = sync.NewCond(&q.mu)
	return q
}

func (q *steppedQueue) Add(item reconcile.Request) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.addLocked(item)
}

func (q *steppedQueue) addLocked(item reconcile.Request) {
	if q.shutdown {
		return
	}
	delete(q.due, item)
	q.queued[item] = true
	q.changed.Broadcast()
}

func (q *steppedQueue) AddAfter(item reconcile.Request, d time.Duration) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.shutdown {
		return
	}
	if d <= 0 {
		q.addLocked(item)
		return
	}
	at := q.now() + d
	if cur, ok := q.due[item]; !ok || at < cur {
		q.due[item] = at
	}
	q.changed.Broadcast()
}

func (q *steppedQueue) AddRateLimited(item reconcile.Request) {
	q.AddAfter(item, q.limiter.When(item))
}

func (q *steppedQueue) AddWithOpts(o priorityqueue.AddOpts, items ...reconcile.Request) {
	for _, item := range items {
		switch {
		case o.RateLimited:
			q.AddRateLimited(item)
		case o.After > 0:
			q.AddAfter(item, o.After)
		default:
			q.Add(item)
		}
	}
}

func (q *steppedQueue) Forget(item reconcile.Request)          { q.limiter.Forget(item) }
func (q *steppedQueue) NumRequeues(item reconcile.Request) int { return q.limiter.NumRequeues(item) }

func (q *steppedQueue) Len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.queued)
}

// Get blocks a worker until the harness hands it an item (Hand).
func (q *steppedQueue) Get() (reconcile.Request, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.getters++
	q.changed.Broadcast()
	defer func() { q.getters-- }()
	for len(q.handed) == 0 && !q.shutdown {
		q.changed.Wait()
	}
	if len(q.handed) == 0 {
		return reconcile.Request{}, true
	}
	item := q.handed[0]
	q.handed = q.handed[1:]
	return item, false
}

func (q *steppedQueue) GetWithPriority() (reconcile.Request, int, bool) {
	item, shutdown := q.Get()
	return item, 0, shutdown
}

func (q *steppedQueue) Done(item reconcile.Request) {
	q.mu.Lock()
	defer q.mu.Unlock()
	delete(q.processing, item)
	q.changed.Broadcast()
}

func (q *steppedQueue) ShutDown() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.shutdown = true
	q.changed.Broadcast()
}

func (q *steppedQueue) ShutDownWithDrain() { q.ShutDown() }

func (q *steppedQueue) ShuttingDown() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.shutdown
}

// ready is the queued items no worker holds, sorted, so that the harness's
// choice does not depend on the order events arrived in.
func (q *steppedQueue) ready() []reconcile.Request {
	q.mu.Lock()
	defer q.mu.Unlock()
	var out []reconcile.Request
	for item := range q.queued {
		if !q.processing[item] {
			out = append(out, item)
		}
	}
	slices.SortFunc(out, compareRequests)
	return out
}

func compareRequests(a, b reconcile.Request) int {
	if a.Namespace != b.Namespace {
		if a.Namespace < b.Namespace {
			return -1
		}
		return 1
	}
	if a.Name < b.Name {
		return -1
	}
	if a.Name > b.Name {
		return 1
	}
	return 0
}

// nextDue is the earliest logical time a delayed item is due.
func (q *steppedQueue) nextDue() (time.Duration, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	var at time.Duration
	found := false
	for _, d := range q.due {
		if !found || d < at {
			at, found = d, true
		}
	}
	return at, found
}

// fireDue queues every delayed item due at or before now.
func (q *steppedQueue) fireDue(now time.Duration) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for item, at := range q.due {
		if at <= now {
			q.addLocked(item)
		}
	}
}

// idle reports a worker waiting in Get and nothing handed or processing:
// the controller has started and is between reconciles.
func (q *steppedQueue) idle() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.getters > 0 && len(q.handed) == 0 && len(q.processing) == 0
}

// hand gives item to a waiting worker and waits until the worker is Done
// with it or parks it (or the queue shuts down). It reports false when
// item was not ready.
func (q *steppedQueue) hand(item reconcile.Request, timeout time.Duration) (bool, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if !q.queued[item] || q.processing[item] || q.shutdown {
		return false, nil
	}
	delete(q.queued, item)
	q.processing[item] = true
	q.handed = append(q.handed, item)
	q.changed.Broadcast()
	return true, q.awaitPause(item, timeout)
}

// park stops the worker reconciling item until the harness lets it go on
// (proceed). It reports false when the queue shut down meanwhile: the
// operator is going away.
func (q *steppedQueue) park(item reconcile.Request) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.parked[item] = true
	q.changed.Broadcast()
	for q.parked[item] && !q.shutdown {
		q.changed.Wait()
	}
	delete(q.parked, item)
	return !q.shutdown
}

// proceed lets a parked item's reconcile go on, and waits until it is
// Done or parks again. It reports false when item was not parked.
func (q *steppedQueue) proceed(item reconcile.Request, timeout time.Duration) (bool, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if !q.parked[item] || q.shutdown {
		return false, nil
	}
	delete(q.parked, item)
	q.changed.Broadcast()
	return true, q.awaitPause(item, timeout)
}

// isParked reports whether item's reconcile waits in park.
func (q *steppedQueue) isParked(item reconcile.Request) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.parked[item]
}

// awaitPause waits, with q.mu held, until item is Done or parked, or the
// queue shuts down.
func (q *steppedQueue) awaitPause(item reconcile.Request, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	stop := time.AfterFunc(timeout, func() {
		q.mu.Lock()
		q.changed.Broadcast()
		q.mu.Unlock()
	})
	defer stop.Stop()
	for q.processing[item] && !q.parked[item] && !q.shutdown {
		if time.Now().After(deadline) {
			return errReconcileTimeout
		}
		q.changed.Wait()
	}
	return nil
}
