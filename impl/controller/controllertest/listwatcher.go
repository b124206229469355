package controllertest

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"sync"

	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/impl/controller"
)

// FakeListWatcher is an in-memory controller.ListWatcher. Writes go
// through Put and Delete; failures through Compact, BreakWatches,
// FailNextList and FailNextWatch.
type FakeListWatcher struct {
	mu        sync.Mutex
	changed   chan struct{}
	rev       int64
	compacted int64
	objs      map[string]map[string]api.Object // resource -> key -> object
	history   []change
	watches   map[*fakeWatch]struct{}
	listErr   error
	watchErr  error
}

type change struct {
	resource string
	ev       controller.ListWatchEvent
}

var _ controller.ListWatcher = (*FakeListWatcher)(nil)

// NewFakeListWatcher is empty, at revision 0.
func NewFakeListWatcher() *FakeListWatcher {
	return &FakeListWatcher{
		changed: make(chan struct{}),
		objs:    map[string]map[string]api.Object{},
		watches: map[*fakeWatch]struct{}{},
	}
}

// Rev is the current revision.
func (f *FakeListWatcher) Rev() int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.rev
}

// Put creates or replaces obj (by namespace/name) at a new revision, which
// it returns and stamps as the stored object's resourceVersion.
func (f *FakeListWatcher) Put(resource string, obj api.Object) int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.rev++
	o := api.DeepCopy(obj)
	api.Meta(o).ResourceVersion = strconv.FormatInt(f.rev, 10)
	byKey := f.objs[resource]
	if byKey == nil {
		byKey = map[string]api.Object{}
		f.objs[resource] = byKey
	}
	typ := controller.Added
	if _, ok := byKey[controller.KeyOf(o)]; ok {
		typ = controller.Modified
	}
	byKey[controller.KeyOf(o)] = o
	f.publishLocked(resource, controller.ListWatchEvent{Type: typ, Object: o, Rev: f.rev})
	return f.rev
}

// Delete removes an object at a new revision; false (and no new revision)
// if it does not exist. The DELETED event carries the last state stamped
// with the deletion revision, as Kubernetes does.
func (f *FakeListWatcher) Delete(resource, namespace, name string) (int64, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	k := controller.Key(namespace, name)
	old, ok := f.objs[resource][k]
	if !ok {
		return 0, false
	}
	f.rev++
	delete(f.objs[resource], k)
	o := api.DeepCopy(old)
	api.Meta(o).ResourceVersion = strconv.FormatInt(f.rev, 10)
	f.publishLocked(resource, controller.ListWatchEvent{Type: controller.Deleted, Object: o, Rev: f.rev})
	return f.rev, true
}

// Compact forgets history up to the current revision: later watches and
// lists from an older revision get a 410. Open watches are unaffected.
func (f *FakeListWatcher) Compact() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.compacted = f.rev
	f.history = nil
}

// BreakWatches ends every open watch with an ERROR event carrying err
// (after the events already queued on it).
func (f *FakeListWatcher) BreakWatches(err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for w := range f.watches {
		w.push(controller.ListWatchEvent{Type: controller.Error, Err: err})
	}
}

// FailNextList makes the next List return err.
func (f *FakeListWatcher) FailNextList(err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.listErr = err
}

// FailNextWatch makes the next Watch call return err.
func (f *FakeListWatcher) FailNextWatch(err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.watchErr = err
}

// Watches is the number of open watches.
func (f *FakeListWatcher) Watches() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.watches)
}

// WaitWatches blocks until exactly n watches are open or ctx ends.
func (f *FakeListWatcher) WaitWatches(ctx context.Context, n int) error {
	for {
		f.mu.Lock()
		got, ch := len(f.watches), f.changed
		f.mu.Unlock()
		if got == n {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return fmt.Errorf("controllertest: %d watches open, want %d: %w", got, n, ctx.Err())
		}
	}
}

// List returns a snapshot of resource in namespace ("" = all), sorted by
// namespace/name, with the current revision. Selectors are not supported.
func (f *FakeListWatcher) List(_ context.Context, resource, namespace string, opts controller.ListOptions) (api.ListObject, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.listErr; err != nil {
		f.listErr = nil
		return nil, err
	}
	if opts.ResourceVersion != "" {
		if rv, err := strconv.ParseInt(opts.ResourceVersion, 10, 64); err == nil && rv < f.compacted {
			return nil, api.NewResourceExpired(fmt.Sprintf("too old resource version: %d (%d)", rv, f.compacted))
		}
	}
	l, err := api.NewList(resource)
	if err != nil {
		return nil, err
	}
	var items []api.Object
	for _, o := range f.objs[resource] {
		if namespace == "" || api.Meta(o).Namespace == namespace {
			items = append(items, api.DeepCopy(o))
		}
	}
	slices.SortFunc(items, func(a, b api.Object) int {
		am, bm := api.Meta(a), api.Meta(b)
		return cmp.Or(cmp.Compare(am.Namespace, bm.Namespace), cmp.Compare(am.Name, bm.Name))
	})
	if err := api.SetItems(l, items); err != nil {
		return nil, err
	}
	api.ListMetaOf(l).ResourceVersion = strconv.FormatInt(f.rev, 10)
	return l, nil
}

// Watch streams the changes to resource in namespace after
// resourceVersion. A compacted resourceVersion yields a single ERROR event
// with a 410.
func (f *FakeListWatcher) Watch(ctx context.Context, resource, namespace, resourceVersion string) (<-chan controller.ListWatchEvent, error) {
	rv, err := strconv.ParseInt(cmp.Or(resourceVersion, "0"), 10, 64)
	if err != nil {
		return nil, api.NewBadRequest(fmt.Sprintf("invalid resourceVersion %q", resourceVersion))
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.watchErr; err != nil {
		f.watchErr = nil
		return nil, err
	}
	w := &fakeWatch{resource: resource, namespace: namespace, out: make(chan controller.ListWatchEvent), wake: make(chan struct{}, 1)}
	if rv < f.compacted {
		w.push(controller.ListWatchEvent{Type: controller.Error,
			Err: api.NewResourceExpired(fmt.Sprintf("too old resource version: %d (%d)", rv, f.compacted))})
	} else {
		for _, c := range f.history {
			if c.ev.Rev > rv && w.matches(c.resource, c.ev.Object) {
				w.push(copyEvent(c.ev))
			}
		}
	}
	f.watches[w] = struct{}{}
	f.broadcastLocked()
	go f.forward(ctx, w)
	return w.out, nil
}

func (f *FakeListWatcher) publishLocked(resource string, ev controller.ListWatchEvent) {
	f.history = append(f.history, change{resource: resource, ev: ev})
	for w := range f.watches {
		if w.matches(resource, ev.Object) {
			w.push(copyEvent(ev))
		}
	}
}

func (f *FakeListWatcher) broadcastLocked() {
	close(f.changed)
	f.changed = make(chan struct{})
}

// forward moves a watch's buffered events to its channel until an ERROR
// event has been sent or ctx ends, then closes it.
func (f *FakeListWatcher) forward(ctx context.Context, w *fakeWatch) {
	defer func() {
		f.mu.Lock()
		delete(f.watches, w)
		f.broadcastLocked()
		f.mu.Unlock()
		close(w.out)
	}()
	for {
		ev, ok := w.pop()
		if !ok {
			select {
			case <-w.wake:
				continue
			case <-ctx.Done():
				return
			}
		}
		select {
		case w.out <- ev:
		case <-ctx.Done():
			return
		}
		if ev.Type == controller.Error {
			return
		}
	}
}

func copyEvent(ev controller.ListWatchEvent) controller.ListWatchEvent {
	if ev.Object != nil {
		ev.Object = api.DeepCopy(ev.Object)
	}
	return ev
}

// fakeWatch buffers without bound so writers never block on readers.
type fakeWatch struct {
	resource, namespace string
	out                 chan controller.ListWatchEvent
	wake                chan struct{}

	mu    sync.Mutex
	buf   []controller.ListWatchEvent
	ended bool
}

func (w *fakeWatch) matches(resource string, obj api.Object) bool {
	return resource == w.resource && (w.namespace == "" || api.Meta(obj).Namespace == w.namespace)
}

func (w *fakeWatch) push(ev controller.ListWatchEvent) {
	w.mu.Lock()
	if !w.ended {
		w.buf = append(w.buf, ev)
		w.ended = ev.Type == controller.Error
	}
	w.mu.Unlock()
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

func (w *fakeWatch) pop() (controller.ListWatchEvent, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.buf) == 0 {
		return controller.ListWatchEvent{}, false
	}
	ev := w.buf[0]
	w.buf = w.buf[1:]
	return ev, true
}
