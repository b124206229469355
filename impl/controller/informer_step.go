package controller

import (
	"context"
	"errors"
	"fmt"
	"strconv"
)

// Start puts the informer in stepped mode: it lists (replacing the cache
// without calling handlers) and opens a watch from the list revision whose
// events are only buffered. Nothing is applied until DeliverNext. ctx
// bounds the life of every watch the informer opens from now on.
func (i *Informer) Start(ctx context.Context) error {
	i.mu.Lock()
	if i.mode == modeRunning {
		i.mu.Unlock()
		return fmt.Errorf("%w: informer %s", ErrAlreadyRunning, i.cfg.Resource)
	}
	i.mode = modeStepped
	i.parent = ctx
	i.mu.Unlock()
	return i.Relist(ctx)
}

// Relist drops any watch and its buffer, lists, REPLACES the cache with the
// list (handlers are not called: the caller resyncs), sets LastRev to the
// list revision and opens a new buffering watch from it. On a list error
// the cache is unchanged and there is no watch. If the list succeeds but
// the watch cannot be opened, the error wraps ErrWatchBroken.
func (i *Informer) Relist(ctx context.Context) error { return i.RelistAt(ctx, 0) }

// RelistAt is Relist served at revision rev (0: the latest), as a lagging
// apiserver serves a restarted client: the cache becomes the store's
// objects at rev, LastRev is rev, and the new watch starts from rev, so
// every later event is delivered again. A compacted rev fails the list.
func (i *Informer) RelistAt(ctx context.Context, rev int64) error {
	i.stepMu.Lock()
	defer i.stepMu.Unlock()
	i.mu.Lock()
	parent := i.parent
	i.mu.Unlock()
	if parent == nil {
		return fmt.Errorf("%w: %s", ErrNotStarted, i.cfg.Resource)
	}
	i.stopWatch()
	objs, rev, err := i.list(ctx, rev)
	if err != nil {
		return err
	}
	i.replaceCache(objs, rev)

	wctx, cancel := context.WithCancel(parent)
	i.mu.Lock()
	i.synced = true
	i.gen++
	gen := i.gen
	i.watchCancel = cancel
	i.mu.Unlock()
	ch, err := i.lw.Watch(wctx, i.cfg.Resource, i.cfg.Namespace, strconv.FormatInt(rev, 10))
	i.mu.Lock()
	defer i.mu.Unlock()
	if err != nil {
		cancel()
		i.broken = fmt.Errorf("%w: watch %s: %w", ErrWatchBroken, i.cfg.Resource, err)
		i.broadcastLocked()
		return i.broken
	}
	i.watching = true
	i.broadcastLocked()
	go i.buffer(wctx, gen, ch)
	return nil
}

// buffer appends the watch's events to the pending FIFO, never applying
// them. It stops quietly once its generation is stale.
func (i *Informer) buffer(ctx context.Context, gen uint64, ch <-chan ListWatchEvent) {
	for ev := range ch {
		i.mu.Lock()
		if gen != i.gen {
			i.mu.Unlock()
			return
		}
		if err := checkEvent(ev); err != nil {
			i.endWatchLocked(fmt.Errorf("controller: watch %s: %w", i.cfg.Resource, wrapBroken(err)))
			i.mu.Unlock()
			return
		}
		ev.Rev = eventRev(ev)
		if ev.Type != Bookmark {
			i.pending = append(i.pending, ev)
		}
		i.pendingRev = max(i.pendingRev, ev.Rev)
		i.broadcastLocked()
		i.mu.Unlock()
	}
	i.mu.Lock()
	defer i.mu.Unlock()
	if gen != i.gen {
		return
	}
	if ctx.Err() != nil {
		i.endWatchLocked(nil) // the Start context ended: no watch, not broken
		return
	}
	i.endWatchLocked(fmt.Errorf("%w: watch %s closed", ErrWatchBroken, i.cfg.Resource))
}

func wrapBroken(err error) error {
	if errors.Is(err, ErrWatchBroken) {
		return err
	}
	return fmt.Errorf("%w: %w", ErrWatchBroken, err)
}

func (i *Informer) endWatchLocked(err error) {
	i.watching = false
	i.broken = err
	if i.watchCancel != nil {
		i.watchCancel()
		i.watchCancel = nil
	}
	i.broadcastLocked()
}

// stopWatch cancels the watch and discards its buffer.
func (i *Informer) stopWatch() {
	i.mu.Lock()
	defer i.mu.Unlock()
	i.gen++
	if i.watchCancel != nil {
		i.watchCancel()
		i.watchCancel = nil
	}
	i.watching = false
	i.broken = nil
	i.pending = nil
	i.pendingRev = i.lastRev
	i.broadcastLocked()
}

// Pending is the number of buffered, undelivered events.
func (i *Informer) Pending() int {
	i.mu.Lock()
	defer i.mu.Unlock()
	return len(i.pending)
}

// Broken reports that the stepped watch has ended with an error, a 410
// Gone, or a close. The events buffered before that stay deliverable; the
// harness is expected to Relist.
func (i *Informer) Broken() bool {
	i.mu.Lock()
	defer i.mu.Unlock()
	return i.broken != nil
}

// DeliverNext waits (up to ctx) until an event is buffered, then applies
// exactly one to the cache and calls the handlers, and returns it. With an
// empty buffer it fails at once if the watch is broken (ErrWatchBroken,
// wrapping the cause, e.g. a 410 for which api.IsResourceExpired holds) or
// absent (ErrNoWatch).
func (i *Informer) DeliverNext(ctx context.Context) (ListWatchEvent, error) {
	i.stepMu.Lock()
	defer i.stepMu.Unlock()
	for {
		i.mu.Lock()
		if len(i.pending) > 0 {
			ev := i.pending[0]
			i.pending[0] = ListWatchEvent{}
			i.pending = i.pending[1:]
			i.mu.Unlock()
			return i.apply(ev), nil
		}
		if err := i.idleErrLocked(); err != nil {
			i.mu.Unlock()
			return ListWatchEvent{}, err
		}
		ch := i.changed
		i.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return ListWatchEvent{}, ctx.Err()
		}
	}
}

// idleErrLocked says why no event can arrive any more, or nil.
func (i *Informer) idleErrLocked() error {
	if i.broken != nil {
		return i.broken
	}
	if !i.watching {
		return fmt.Errorf("%w: informer %s", ErrNoWatch, i.cfg.Resource)
	}
	return nil
}

// WaitRev waits (up to ctx) until an event with revision >= rev has been
// buffered or applied, or a list at or after rev was applied. In stepped
// mode it fails once no such event can arrive (broken or no watch).
func (i *Informer) WaitRev(ctx context.Context, rev int64) error {
	return i.waitFor(ctx, func() (bool, error) {
		if i.lastRev >= rev || i.pendingRev >= rev {
			return true, nil
		}
		if i.mode == modeStepped {
			return false, i.idleErrLocked()
		}
		return false, nil
	})
}

// DropWatch cancels the watch and discards the buffered events, as a
// dropped connection would. The cache keeps its content until Relist.
func (i *Informer) DropWatch() {
	i.stepMu.Lock()
	defer i.stepMu.Unlock()
	i.stopWatch()
}

// Reset models a crash: the watch, the buffer and the cache are emptied and
// LastRev goes to 0. A stepped informer comes back with Relist.
func (i *Informer) Reset() {
	i.stepMu.Lock()
	defer i.stepMu.Unlock()
	i.stopWatch()
	i.cache.replace(nil)
	i.mu.Lock()
	defer i.mu.Unlock()
	i.lastRev = 0
	i.pendingRev = 0
	i.synced = false
	i.broadcastLocked()
}

// Horizon is the view the informer will have once every buffered event
// is delivered: how many objects, and the highest revision seen. A harness
// compares it with the store to know that no event is still on its way.
func (i *Informer) Horizon() (count int, rev int64) {
	i.stepMu.Lock() // not halfway through a delivery
	defer i.stepMu.Unlock()
	i.mu.Lock()
	defer i.mu.Unlock()
	count = i.cache.Len()
	for _, ev := range i.pending {
		switch ev.Type {
		case Added:
			count++
		case Deleted:
			count--
		}
	}
	return count, max(i.lastRev, i.pendingRev)
}
