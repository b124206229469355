package controller

import (
	"cmp"
	"context"
	"slices"
	"sync"
	"time"
)

// QueueConfig configures a Queue; every field has a default.
type QueueConfig struct {
	// Stepped makes every delay zero: AddAfter and AddRateLimited put the
	// key in the queue at once, marked as a retry.
	Stepped bool
	// Clock times delays in running mode. Default RealClock.
	Clock Clock
	// BaseDelay and MaxDelay bound the per-key exponential backoff of
	// AddRateLimited: BaseDelay * 2^(failures-1), capped. Defaults 5ms, 1s.
	BaseDelay, MaxDelay time.Duration
}

// Queue is a deduplicating FIFO of keys with client-go's semantics: a key
// is held at most once, and a key being processed (handed out by Get or
// Take, not yet Done) is not handed out again; adding it meanwhile queues
// it again at Done. It is safe for concurrent use.
type Queue struct {
	cfg QueueConfig

	mu         sync.Mutex
	changed    chan struct{}
	queue      []string
	dirty      map[string]bool // queued or to be queued at Done; value = retry mark
	processing map[string]struct{}
	failures   map[string]int
	waiting    map[string]time.Time // running mode: key -> ready time
	shutdown   bool
}

// NewQueue builds an empty queue.
func NewQueue(cfg QueueConfig) *Queue {
	if cfg.Clock == nil {
		cfg.Clock = RealClock
	}
	if cfg.BaseDelay <= 0 {
		cfg.BaseDelay = 5 * time.Millisecond
	}
	if cfg.MaxDelay < cfg.BaseDelay {
		cfg.MaxDelay = max(time.Second, cfg.BaseDelay)
	}
	return &Queue{
		cfg:        cfg,
		changed:    make(chan struct{}),
		dirty:      map[string]bool{},
		processing: map[string]struct{}{},
		failures:   map[string]int{},
		waiting:    map[string]time.Time{},
	}
}

// Add queues key as fresh work, clearing a retry mark.
func (q *Queue) Add(key string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.addLocked(key, false)
}

// AddRateLimited queues key as a retry after its backoff (at once in
// stepped mode) and counts a failure for it.
func (q *Queue) AddRateLimited(key string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.failures[key]++
	q.addAfterLocked(key, q.backoffLocked(key))
}

// AddAfter queues key as a retry once d has passed (at once in stepped
// mode, or if d <= 0).
func (q *Queue) AddAfter(key string, d time.Duration) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.addAfterLocked(key, d)
}

// Forget resets key's backoff.
func (q *Queue) Forget(key string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	delete(q.failures, key)
}

// NumRequeues is the number of AddRateLimited calls since key's last Forget.
func (q *Queue) NumRequeues(key string) int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.failures[key]
}

// Len is the number of keys ready to be handed out.
func (q *Queue) Len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.promoteLocked()
	return len(q.queue)
}

// Busy reports whether a key is ready to be handed out or being
// processed (handed out, not yet Done).
func (q *Queue) Busy() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.promoteLocked()
	return len(q.queue) > 0 || len(q.processing) > 0
}

// Get blocks until a key is ready and hands it out; the caller must call
// Done(key) when finished. shutdown is true (and key "") once ShutDown was
// called or ctx ended.
func (q *Queue) Get(ctx context.Context) (key string, shutdown bool) {
	for {
		q.mu.Lock()
		if q.shutdown {
			q.mu.Unlock()
			return "", true
		}
		q.promoteLocked()
		if len(q.queue) > 0 {
			key = q.popLocked(0)
			q.mu.Unlock()
			return key, false
		}
		ch := q.changed
		var timer <-chan time.Time
		if next, ok := q.nextReadyLocked(); ok {
			timer = q.cfg.Clock.After(next.Sub(q.cfg.Clock.Now()))
		}
		q.mu.Unlock()
		select {
		case <-ch:
		case <-timer:
		case <-ctx.Done():
			return "", true
		}
	}
}

// Done ends the processing of key; if it was added meanwhile, it goes back
// to the tail of the queue.
func (q *Queue) Done(key string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	delete(q.processing, key)
	if _, ok := q.dirty[key]; ok {
		q.queue = append(q.queue, key)
		q.broadcastLocked()
	}
}

// ShutDown makes every Get return shutdown and ignores later adds.
func (q *Queue) ShutDown() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.shutdown = true
	q.broadcastLocked()
}

// Keys is the ready keys in the order Get would hand them out.
func (q *Queue) Keys() []string {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.promoteLocked()
	return slices.Clone(q.queue)
}

// IsRetry reports whether key is queued because of AddRateLimited or
// AddAfter rather than Add.
func (q *Queue) IsRetry(key string) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.dirty[key]
}

// Take hands out a specific ready key, as Get would; false if it is not
// ready in the queue. The caller must call Done(key).
func (q *Queue) Take(key string) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.promoteLocked()
	n := slices.Index(q.queue, key)
	if n < 0 {
		return false
	}
	q.popLocked(n)
	return true
}

func (q *Queue) popLocked(n int) string {
	key := q.queue[n]
	if n == 0 {
		// Get's pop from the front: a delete there moved every other key,
		// and 10,000 queued pods made popping them all quadratic. The
		// slice's start moves instead; append reallocates the rest.
		q.queue[0] = ""
		q.queue = q.queue[1:]
	} else {
		q.queue = slices.Delete(q.queue, n, n+1)
	}
	delete(q.dirty, key)
	q.processing[key] = struct{}{}
	return key
}

func (q *Queue) addLocked(key string, retry bool) {
	if q.shutdown {
		return
	}
	if mark, ok := q.dirty[key]; ok {
		// Fresh work wins over a retry; a retry never downgrades it.
		q.dirty[key] = mark && retry
		return
	}
	q.dirty[key] = retry
	if _, busy := q.processing[key]; busy {
		return
	}
	q.queue = append(q.queue, key)
	q.broadcastLocked()
}

func (q *Queue) addAfterLocked(key string, d time.Duration) {
	if q.cfg.Stepped || d <= 0 {
		q.addLocked(key, true)
		return
	}
	if q.shutdown {
		return
	}
	ready := q.cfg.Clock.Now().Add(d)
	if at, ok := q.waiting[key]; ok && !ready.Before(at) {
		return
	}
	q.waiting[key] = ready
	q.broadcastLocked()
}

// promoteLocked moves every delayed key whose time has come into the
// queue, earliest first (then by key, for a stable order).
func (q *Queue) promoteLocked() {
	if len(q.waiting) == 0 {
		return
	}
	now := q.cfg.Clock.Now()
	var ready []string
	for k, at := range q.waiting {
		if !at.After(now) {
			ready = append(ready, k)
		}
	}
	slices.SortFunc(ready, func(a, b string) int {
		if c := q.waiting[a].Compare(q.waiting[b]); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	for _, k := range ready {
		delete(q.waiting, k)
		q.addLocked(k, true)
	}
}

func (q *Queue) nextReadyLocked() (time.Time, bool) {
	var next time.Time
	found := false
	for _, at := range q.waiting {
		if !found || at.Before(next) {
			next, found = at, true
		}
	}
	return next, found
}

func (q *Queue) backoffLocked(key string) time.Duration {
	d := q.cfg.BaseDelay
	for n := 1; n < q.failures[key] && d < q.cfg.MaxDelay; n++ {
		d *= 2
	}
	return min(d, q.cfg.MaxDelay)
}

func (q *Queue) broadcastLocked() {
	close(q.changed)
	q.changed = make(chan struct{})
}
