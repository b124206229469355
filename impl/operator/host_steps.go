package operator

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/impl/store"
)

// controllers is the current manager's controllers, sorted.
func (h *Host) controllers() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := slices.Clone(h.adopted)
	slices.Sort(out)
	return out
}

func (h *Host) queue(name string) *steppedQueue {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.queues[name]
}

// waitIdle waits until every controller has started (its sources synced,
// a worker waiting) and nothing is being reconciled.
func (h *Host) waitIdle() error {
	deadline := time.Now().Add(h.cfg.Timeout)
	for {
		idle := true
		for _, c := range h.controllers() {
			if q := h.queue(c); q == nil || !q.idle() {
				idle = false
				break
			}
		}
		if idle {
			return h.Sync()
		}
		select {
		case err := <-h.run.done:
			if err == nil {
				err = errors.New("the manager stopped")
			}
			return fmt.Errorf("operator: manager: %w", err)
		default:
		}
		if time.Now().After(deadline) {
			if err := h.run.cache.lastError(); err != nil {
				return fmt.Errorf("operator: the controllers did not start within %s: %w", h.cfg.Timeout, err)
			}
			return fmt.Errorf("operator: the controllers did not start within %s", h.cfg.Timeout)
		}
		time.Sleep(200 * time.Microsecond)
	}
}

// Sync waits until every informer of the operator has buffered every
// event written so far, so that what is deliverable does not depend on
// timing: an informer is caught up when the objects and the highest
// revision it will have match the store's fingerprint of its resource.
func (h *Host) Sync() error {
	infs := h.run.cache.all()
	if len(infs) == 0 {
		return nil
	}
	scopes := make([]store.Scope, len(infs))
	for n, i := range infs {
		scopes[n] = store.Scope{Resource: api.StorageName(i.inner.Resource())}
	}
	deadline := time.Now().Add(h.cfg.Timeout)
	ctx, cancel := context.WithTimeout(context.Background(), h.cfg.Timeout)
	defer cancel()
	if rev, err := h.cfg.Store.Rev(ctx); err == nil && rev == h.synced && h.syncedSet == len(infs) {
		return nil // nothing was written since the last sync, and no informer is new
	}
	for {
		fps, rev, err := h.cfg.Store.Fingerprints(ctx, scopes...)
		if err != nil {
			return err
		}
		behind, changed := "", (<-chan struct{})(nil)
		for n, i := range infs {
			ch := i.inner.Changed() // before the look, so that no change is missed
			count, rev := i.inner.Horizon()
			if int64(count) != fps[n].Count || rev < fps[n].MaxModRev {
				behind, changed = i.inner.Resource(), ch
				if i.inner.Broken() {
					if err := h.relist(i); err != nil {
						return err
					}
				}
			}
		}
		if behind == "" {
			h.synced, h.syncedSet = rev, len(infs)
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("operator: the %s informer did not catch up within %s", behind, h.cfg.Timeout)
		}
		// Wake on the informer's change rather than poll (a 200µs sleep
		// took 850µs on a loaded 2-core machine), and look again after a
		// while in any case.
		select {
		case <-changed:
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// Deliverable is the resources whose informers have an event to deliver.
func (h *Host) Deliverable() []string {
	var out []string
	for _, i := range h.run.cache.all() {
		if i.inner.Pending() > 0 {
			out = append(out, i.inner.Resource())
		}
	}
	return out
}

func (h *Host) informer(resource string) (*steppedInformer, error) {
	for _, i := range h.run.cache.all() {
		if i.inner.Resource() == resource {
			return i, nil
		}
	}
	return nil, fmt.Errorf("operator: no informer of %s", resource)
}

// Deliver applies the next event of resource's informer: the cache
// changes and the controllers' handlers queue what they map it to.
func (h *Host) Deliver(resource string) (string, error) {
	i, err := h.informer(resource)
	if err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(context.Background(), h.cfg.Timeout)
	defer cancel()
	ev, err := i.inner.DeliverNext(ctx)
	if err != nil {
		return "", fmt.Errorf("operator: deliver %s: %w", resource, err)
	}
	m := api.Meta(ev.Object)
	return ev.Type + " " + resource + "/" + objectKey(m.Namespace, m.Name), nil
}

// DropWatch drops resource's watch and relists, as a broken connection
// does: the events in flight are lost, and the handlers hear the
// difference between the cache and the list.
func (h *Host) DropWatch(resource string) error {
	i, err := h.informer(resource)
	if err != nil {
		return err
	}
	i.inner.DropWatch()
	return h.relist(i)
}

func (h *Host) relist(i *steppedInformer) error {
	ctx, cancel := context.WithTimeout(context.Background(), h.cfg.Timeout)
	defer cancel()
	if err := i.inner.Relist(ctx); err != nil {
		return fmt.Errorf("operator: relist %s: %w", i.inner.Resource(), err)
	}
	return i.resync(true)
}

// Ready is the queued requests no worker holds, of the controllers with
// a worker free, by controller then key.
func (h *Host) Ready() []Item {
	var out []Item
	for _, c := range h.controllers() {
		if q := h.queue(c); q != nil && h.freeWorkers(c) > 0 {
			for _, r := range q.ready() {
				out = append(out, Item{c, r})
			}
		}
	}
	return out
}

// freeWorkers is how many more reconciles controller c may run beside
// those it has parked.
func (h *Host) freeWorkers(c string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := h.workers[c]
	for it := range h.active {
		if it.Controller == c {
			n--
		}
	}
	return n
}

// Parked is the reconciles waiting before a write for Continue, by
// controller then key.
func (h *Host) Parked() []Item {
	h.mu.Lock()
	out := make([]Item, 0, len(h.active))
	for it := range h.active {
		out = append(out, it)
	}
	h.mu.Unlock()
	slices.SortFunc(out, func(a, b Item) int {
		if a.Controller != b.Controller {
			return strings.Compare(a.Controller, b.Controller)
		}
		return compareRequests(a.Request, b.Request)
	})
	return out
}

// Faults are the faults of one reconcile.
type Faults struct {
	// CrashAfter >= 0: the operator dies when it tries its write number
	// CrashAfter+1 (counting from 1): the writes before it land, none
	// after it does, and the operator is built again from Setup. Below 0:
	// no crash.
	CrashAfter int
	// FailRequest > 0: the reconcile's request number FailRequest (counting
	// from 1) fails with a 500, as an overloaded apiserver's do.
	FailRequest int
}

// NoFaults is a reconcile without faults.
var NoFaults = Faults{CrashAfter: -1}

// Reconcile hands it to its controller, with faults f, and waits until
// the controller is done with it, or parks it.
func (h *Host) Reconcile(it Item, f Faults) (Outcome, error) {
	q := h.queue(it.Controller)
	if q == nil {
		return Outcome{}, fmt.Errorf("operator: no controller %s", it.Controller)
	}
	if h.freeWorkers(it.Controller) <= 0 {
		return Outcome{}, fmt.Errorf("operator: %s has no worker free for %s", it.Controller, it)
	}
	p := &pass{Item: it, budget: f.CrashAfter, failAt: f.FailRequest, stale: h.staleKinds()}
	h.mu.Lock()
	p.life, p.interleaved = h.run, h.workers[it.Controller] > 1
	h.active[it], h.running = p, p
	h.mu.Unlock()
	handed, err := q.hand(it.Request, h.cfg.Timeout)
	if err == nil && !handed {
		err = errors.New("not ready")
	}
	return h.paused(p, q, err)
}

// Continue lets a parked reconcile go on until it is done or parks again.
func (h *Host) Continue(it Item) (Outcome, error) {
	q := h.queue(it.Controller)
	h.mu.Lock()
	p := h.active[it]
	if p != nil {
		h.running = p
	}
	h.mu.Unlock()
	if q == nil || p == nil {
		return Outcome{}, fmt.Errorf("operator: %s is not parked", it)
	}
	proceeded, err := q.proceed(it.Request, h.cfg.Timeout)
	if err == nil && !proceeded {
		err = errors.New("not parked")
	}
	return h.paused(p, q, err)
}

// paused is what p did since it was handed or continued, now that it is
// done or parked; a crash restarts the operator, ending the reconciles
// parked beside it.
func (h *Host) paused(p *pass, q *steppedQueue, err error) (Outcome, error) {
	parked := q.isParked(p.Request)
	h.mu.Lock()
	out := Outcome{Writes: p.written, Crashed: p.life.crashed, Parked: parked, Refused: p.refused,
		Settled: p.checks.settled && !p.faulted && !p.life.crashed}
	p.written, p.refused = nil, ""
	if !parked {
		delete(h.active, p.Item)
		if h.running == p {
			h.running = nil // later requests are no reconcile's
		}
	}
	h.mu.Unlock()
	if err != nil {
		return out, fmt.Errorf("operator: reconcile %s: %w", p.Item, err)
	}
	if out.Crashed {
		out.Killed, out.Parked = h.Parked(), false
		if err := h.Restart(); err != nil {
			return out, err
		}
	}
	return out, h.Sync()
}

// NextTimer is when the earliest delayed request (RequeueAfter, a
// rate-limited retry) is due on the logical clock.
func (h *Host) NextTimer() (time.Duration, bool) {
	var at time.Duration
	found := false
	for _, c := range h.controllers() {
		if q := h.queue(c); q != nil {
			if d, ok := q.nextDue(); ok && (!found || d < at) {
				at, found = d, true
			}
		}
	}
	return at, found
}

// FireTimers advances the logical clock to the earliest due request and
// queues every request due by then.
func (h *Host) FireTimers() {
	at, ok := h.NextTimer()
	if !ok {
		return
	}
	h.mu.Lock()
	h.now = max(h.now, at)
	now := h.now
	h.mu.Unlock()
	for _, c := range h.controllers() {
		if q := h.queue(c); q != nil {
			q.fireDue(now)
		}
	}
}

// Resync sends every cached object to the handlers again, as a resync
// period does; a controller at its fixed point then writes nothing.
func (h *Host) Resync() {
	for _, i := range h.run.cache.all() {
		i.replay()
	}
}

// Restart kills the operator and builds it again from Setup, as a
// restarted pod would be: new caches listed afresh, empty queues.
func (h *Host) Restart() error {
	h.stop()
	return h.start(nil)
}

// RestartLagging is Restart against a lagging apiserver, what Sieve calls
// time travel: each informer's first list is served at the revision the
// dead operator's informer had reached, and what happened since comes
// after it as watch events, as if from an apiserver catching up.
func (h *Host) RestartLagging() error {
	lag := map[string]int64{}
	for _, i := range h.run.cache.all() {
		lag[i.inner.Resource()] = i.inner.LastRev()
	}
	h.stop()
	return h.start(lag)
}

func (h *Host) stop() {
	if h.run == nil {
		return
	}
	h.mu.Lock()
	h.run.crashed = true // parked reconciles wake to a dead apiserver
	h.mu.Unlock()
	h.run.cancel()
	select {
	case <-h.run.done:
	case <-time.After(h.cfg.Timeout):
		h.report(errors.New("operator: the manager did not stop in time"))
	}
}
