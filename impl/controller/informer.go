package controller

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/impl/store"
)

// Bookmark is a watch event that only advances the revision.
const Bookmark = "BOOKMARK"

// Handler is called after the cache has applied ev. For DELETED, ev.Object
// is the last state. Handlers run one at a time, on the goroutine that
// applies events (Run's, or the caller of DeliverNext); they must not call
// back into the informer's stepped methods.
type Handler func(ev ListWatchEvent, cache *Cache)

// InformerConfig configures one informer. Resource is required; the rest
// have defaults.
type InformerConfig struct {
	// Resource is the plural resource name ("pods").
	Resource string
	// Namespace limits the informer to one namespace; "" means all.
	Namespace string
	// Clock times the running-mode backoff. Default RealClock.
	Clock Clock
	// MinBackoff and MaxBackoff bound the running-mode wait before a
	// relist or rewatch. Defaults 10ms and 1s.
	MinBackoff, MaxBackoff time.Duration
	// OnError, if set, hears running-mode list and watch failures.
	OnError func(error)
}

type informerMode int

const (
	modeIdle informerMode = iota
	modeRunning
	modeStepped
)

// Informer keeps a Cache of one resource in step with the store, by list
// then watch, and tells handlers about every change it applies. Drive it
// either with Run (running mode) or with Start and the stepped methods.
type Informer struct {
	lw    ListWatcher
	cfg   InformerConfig
	cache *Cache

	// stepMu serialises the stepped calls that change state, so one
	// DeliverNext never interleaves with a Relist.
	stepMu sync.Mutex

	mu       sync.Mutex
	changed  chan struct{} // closed and replaced on every state change
	handlers []Handler
	mode     informerMode
	lastRev  int64
	synced   bool

	// Stepped-mode state.
	parent      context.Context
	watchCancel context.CancelFunc
	gen         uint64 // bumps on every watch restart; stale goroutines check it
	watching    bool
	pending     []ListWatchEvent
	pendingRev  int64 // highest revision buffered or applied
	broken      error
}

// NewInformer builds an idle informer over lw.
func NewInformer(lw ListWatcher, cfg InformerConfig) *Informer {
	if cfg.Clock == nil {
		cfg.Clock = RealClock
	}
	if cfg.MinBackoff <= 0 {
		cfg.MinBackoff = 10 * time.Millisecond
	}
	if cfg.MaxBackoff < cfg.MinBackoff {
		cfg.MaxBackoff = max(time.Second, cfg.MinBackoff)
	}
	return &Informer{lw: lw, cfg: cfg, cache: newCache(store.IsUnion(cfg.Resource)), changed: make(chan struct{})}
}

// Resource is the resource this informer watches.
func (i *Informer) Resource() string { return i.cfg.Resource }

// Cache is the informer's cache. It stays the same value across relists
// and resets.
func (i *Informer) Cache() *Cache { return i.cache }

// AddHandler registers h for every event applied from now on.
func (i *Informer) AddHandler(h Handler) {
	i.mu.Lock()
	defer i.mu.Unlock()
	i.handlers = append(i.handlers, h)
}

// AddIndexer registers an index on the cache.
func (i *Informer) AddIndexer(name string, f IndexFunc) error { return i.cache.AddIndexer(name, f) }

// LastRev is the revision of the last event applied, or the list revision
// after a (re)list.
func (i *Informer) LastRev() int64 {
	i.mu.Lock()
	defer i.mu.Unlock()
	return i.lastRev
}

// HasSynced reports whether the first list has been applied (and, in
// running mode, handed to the handlers). Reset clears it.
func (i *Informer) HasSynced() bool {
	i.mu.Lock()
	defer i.mu.Unlock()
	return i.synced
}

// WaitForSync blocks until HasSynced or ctx ends.
func (i *Informer) WaitForSync(ctx context.Context) error {
	return i.waitFor(ctx, func() (bool, error) { return i.synced, nil })
}

// waitFor blocks until cond (called with mu held) reports done or an error.
func (i *Informer) waitFor(ctx context.Context, cond func() (bool, error)) error {
	for {
		i.mu.Lock()
		done, err := cond()
		ch := i.changed
		i.mu.Unlock()
		if done || err != nil {
			return err
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// Changed is closed at the informer's next change of state (an event
// buffered or delivered, a list, a broken watch): a harness that finds it
// behind the store waits on it rather than polling.
func (i *Informer) Changed() <-chan struct{} {
	i.mu.Lock()
	defer i.mu.Unlock()
	return i.changed
}

// broadcastLocked wakes every waiter; mu must be held.
func (i *Informer) broadcastLocked() {
	close(i.changed)
	i.changed = make(chan struct{})
}

// list fetches the whole resource and the list revision.
func (i *Informer) list(ctx context.Context, at int64) ([]api.Object, int64, error) {
	var o ListOptions
	if at > 0 {
		o.ResourceVersion = strconv.FormatInt(at, 10)
	}
	l, err := i.lw.List(ctx, i.cfg.Resource, i.cfg.Namespace, o)
	if err != nil {
		return nil, 0, fmt.Errorf("controller: list %s: %w", i.cfg.Resource, err)
	}
	if l == nil {
		return nil, 0, fmt.Errorf("controller: list %s: %w: nil list", i.cfg.Resource, ErrBadRevision)
	}
	rev, err := parseRev(api.ListMetaOf(l).ResourceVersion)
	if err != nil {
		return nil, 0, fmt.Errorf("controller: list %s: %w", i.cfg.Resource, err)
	}
	items := api.Items(l)
	objs := make([]api.Object, 0, len(items))
	for _, o := range items {
		if o != nil {
			objs = append(objs, o)
		}
	}
	return objs, rev, nil
}

// replaceCache installs a list and returns the events that turn the old
// cache into the new one, sorted by key: DELETED (last state) for keys now
// missing, ADDED for new keys, MODIFIED for changed resourceVersions.
func (i *Informer) replaceCache(objs []api.Object, rev int64) []ListWatchEvent {
	old := i.cache.replace(objs)
	var evs []ListWatchEvent
	for _, o := range objs {
		prev, had := old[i.cache.key(o)]
		switch {
		case !had:
			evs = append(evs, ListWatchEvent{Type: Added, Object: o, Rev: rev})
		case api.Meta(prev).ResourceVersion != api.Meta(o).ResourceVersion:
			evs = append(evs, ListWatchEvent{Type: Modified, Object: o, Rev: rev})
		}
		delete(old, i.cache.key(o))
	}
	for _, o := range old {
		evs = append(evs, ListWatchEvent{Type: Deleted, Object: o, Rev: rev})
	}
	sortEvents(evs)
	i.mu.Lock()
	i.lastRev = rev
	i.pendingRev = rev
	i.broadcastLocked()
	i.mu.Unlock()
	return evs
}

func sortEvents(evs []ListWatchEvent) {
	slices.SortFunc(evs, func(a, b ListWatchEvent) int { return compareObjects(a.Object, b.Object) })
}

// apply updates the cache with one non-ending event, advances LastRev and
// calls the handlers.
func (i *Informer) apply(ev ListWatchEvent) ListWatchEvent {
	ev.Rev = eventRev(ev)
	switch ev.Type {
	case Deleted:
		i.cache.remove(ev.Object)
	case Bookmark:
	default:
		i.cache.put(ev.Object)
	}
	i.mu.Lock()
	i.lastRev = max(i.lastRev, ev.Rev)
	i.pendingRev = max(i.pendingRev, ev.Rev)
	hs := i.handlers
	i.broadcastLocked()
	i.mu.Unlock()
	if ev.Type != Bookmark {
		i.notify(hs, ev)
	}
	return ev
}

func (i *Informer) notify(hs []Handler, ev ListWatchEvent) {
	for _, h := range hs {
		h(ev, i.cache)
	}
}

// checkEvent rejects events the informer cannot apply; such an event ends
// the watch like an ERROR does.
func checkEvent(ev ListWatchEvent) error {
	if isEnd(ev) {
		return endErr(ev)
	}
	switch ev.Type {
	case Added, Modified, Deleted:
		if ev.Object == nil {
			return fmt.Errorf("%w: %s event without object", ErrWatchBroken, ev.Type)
		}
	case Bookmark:
	default:
		return fmt.Errorf("%w: unknown event type %q", ErrWatchBroken, ev.Type)
	}
	return nil
}
