package operator

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	kjson "sigs.k8s.io/json"

	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/impl/controller"
)

// steppedCache is the operator's cache.Cache: one informer per kind, each
// over converge's stepped informer, whose watch events reach the cache and
// the controllers' event handlers only when the harness delivers them.
// Reads are served from what was delivered, as from a real informer
// cache: that is where stale reads come from.
type steppedCache struct {
	ctx    context.Context
	scheme *runtime.Scheme
	mapper meta.RESTMapper
	lw     controller.ListWatcher
	report func(error)
	lag    map[string]int64 // resource -> revision of its first list (RestartLagging)
	// read, if set, hears each object a Get served, with the reader's
	// context (the observed-generation oracle).
	read func(ctx context.Context, gk schema.GroupKind, key client.ObjectKey, generation int64)

	mu        sync.Mutex
	lastErr   error // why the last informer could not start
	informers map[schema.GroupVersionKind]*steppedInformer
	indexes   map[schema.GroupVersionKind]map[string]client.IndexerFunc
}

var _ cache.Cache = (*steppedCache)(nil)

func newSteppedCache(ctx context.Context, scheme *runtime.Scheme, mapper meta.RESTMapper, lw controller.ListWatcher, report func(error)) *steppedCache {
	return &steppedCache{ctx: ctx, scheme: scheme, mapper: mapper, lw: lw, report: report,
		informers: map[schema.GroupVersionKind]*steppedInformer{}, indexes: map[schema.GroupVersionKind]map[string]client.IndexerFunc{}}
}

// informerFor finds or starts the informer of gvk; starting lists at once,
// so the cache is synced when this returns.
func (c *steppedCache) informerFor(gvk schema.GroupVersionKind) (*steppedInformer, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if i, ok := c.informers[gvk]; ok {
		return i, nil
	}
	m, err := c.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		c.lastErr = fmt.Errorf("%s: %w (is its CRD among the CRDs?)", gvk, err)
		return nil, err
	}
	i := &steppedInformer{gvk: gvk, gr: m.Resource.GroupResource(),
		scheme: c.scheme, report: c.report, objs: map[string]client.Object{}}
	i.inner = controller.NewInformer(c.lw, controller.InformerConfig{Resource: m.Resource.Resource})
	i.inner.AddHandler(i.onEvent)
	if err := i.inner.Start(c.ctx); err != nil {
		return nil, fmt.Errorf("list %s: %w", m.Resource.Resource, err)
	}
	if at := c.lag[m.Resource.Resource]; at > 0 {
		// A compacted revision cannot be served: the list stays the latest.
		if err := i.inner.RelistAt(c.ctx, at); err != nil {
			if err := i.inner.Relist(c.ctx); err != nil {
				return nil, fmt.Errorf("list %s: %w", m.Resource.Resource, err)
			}
		}
	}
	i.startRev = i.inner.LastRev()
	if err := i.resync(false); err != nil {
		return nil, err
	}
	c.informers[gvk] = i
	return i, nil
}

func (c *steppedCache) lastError() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lastErr
}

// all is every informer, in a fixed order.
func (c *steppedCache) all() []*steppedInformer {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]*steppedInformer, 0, len(c.informers))
	for _, i := range c.informers {
		out = append(out, i)
	}
	slices.SortFunc(out, func(a, b *steppedInformer) int { return strings.Compare(a.gr.String(), b.gr.String()) })
	return out
}

func (c *steppedCache) gvkOf(obj runtime.Object) (schema.GroupVersionKind, error) {
	return apiutil.GVKForObject(obj, c.scheme)
}

func (c *steppedCache) Get(ctx context.Context, key client.ObjectKey, obj client.Object, _ ...client.GetOption) error {
	gvk, err := c.gvkOf(obj)
	if err != nil {
		return err
	}
	i, err := c.informerFor(gvk)
	if err != nil {
		return err
	}
	got, ok := i.get(key)
	if !ok {
		return apierrors.NewNotFound(i.gr, key.Name)
	}
	if c.read != nil {
		c.read(ctx, gvk.GroupKind(), key, got.GetGeneration())
	}
	return copyInto(got, obj)
}

func (c *steppedCache) List(_ context.Context, list client.ObjectList, opts ...client.ListOption) error {
	gvk, err := c.gvkOf(list)
	if err != nil {
		return err
	}
	gvk.Kind = strings.TrimSuffix(gvk.Kind, "List")
	i, err := c.informerFor(gvk)
	if err != nil {
		return err
	}
	lo := (&client.ListOptions{}).ApplyOptions(opts)
	match, err := c.matcher(gvk, lo)
	if err != nil {
		return err
	}
	var items []runtime.Object
	for _, o := range i.list() {
		if lo.Namespace != "" && o.GetNamespace() != lo.Namespace {
			continue
		}
		if lo.LabelSelector != nil && !lo.LabelSelector.Matches(labels.Set(o.GetLabels())) {
			continue
		}
		if !match(o) {
			continue
		}
		items = append(items, o.DeepCopyObject())
	}
	if p, ok := list.(*metav1.PartialObjectMetadataList); ok {
		p.Items = nil
		for _, it := range items {
			p.Items = append(p.Items, *partial(it.(client.Object)))
		}
		return nil
	}
	if u, ok := list.(*unstructured.UnstructuredList); ok {
		u.Items = nil
		for _, it := range items {
			m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(it)
			if err != nil {
				return err
			}
			u.Items = append(u.Items, unstructured.Unstructured{Object: m})
		}
		return nil
	}
	return meta.SetList(list, items)
}

// matcher is the field selector of a list: exact matches on an index
// (IndexField), on metadata.name or on metadata.namespace, which is what
// controller-runtime's cache supports.
func (c *steppedCache) matcher(gvk schema.GroupVersionKind, lo *client.ListOptions) (func(client.Object) bool, error) {
	if lo.FieldSelector == nil || lo.FieldSelector.Empty() {
		return func(client.Object) bool { return true }, nil
	}
	reqs := lo.FieldSelector.Requirements()
	c.mu.Lock()
	idx := c.indexes[gvk]
	c.mu.Unlock()
	for _, r := range reqs {
		if r.Operator != "=" && r.Operator != "==" {
			return nil, fmt.Errorf("field selector %q: the cache supports exact matches only", lo.FieldSelector)
		}
		if r.Field != "metadata.name" && r.Field != "metadata.namespace" && idx[r.Field] == nil {
			return nil, fmt.Errorf("index with name field:%s does not exist", r.Field)
		}
	}
	return func(o client.Object) bool {
		for _, r := range reqs {
			var vals []string
			switch r.Field {
			case "metadata.name":
				vals = []string{o.GetName()}
			case "metadata.namespace":
				vals = []string{o.GetNamespace()}
			default:
				vals = idx[r.Field](o)
			}
			if !slices.Contains(vals, r.Value) {
				return false
			}
		}
		return true
	}, nil
}

func (c *steppedCache) GetInformer(_ context.Context, obj client.Object, _ ...cache.InformerGetOption) (cache.Informer, error) {
	gvk, err := c.gvkOf(obj)
	if err != nil {
		return nil, err
	}
	return c.informerFor(gvk)
}

func (c *steppedCache) GetInformerForKind(_ context.Context, gvk schema.GroupVersionKind, _ ...cache.InformerGetOption) (cache.Informer, error) {
	return c.informerFor(gvk)
}

func (c *steppedCache) RemoveInformer(_ context.Context, obj client.Object) error {
	gvk, err := c.gvkOf(obj)
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if i, ok := c.informers[gvk]; ok {
		i.inner.DropWatch()
		delete(c.informers, gvk)
	}
	return nil
}

// Start blocks, as a cache's Start does; the informers start when first
// asked for.
func (c *steppedCache) Start(ctx context.Context) error {
	<-ctx.Done()
	return nil
}

func (c *steppedCache) WaitForCacheSync(context.Context) bool { return true }

func (c *steppedCache) IndexField(_ context.Context, obj client.Object, field string, extract client.IndexerFunc) error {
	gvk, err := c.gvkOf(obj)
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.indexes[gvk] == nil {
		c.indexes[gvk] = map[string]client.IndexerFunc{}
	}
	if c.indexes[gvk][field] != nil {
		return fmt.Errorf("indexer conflict: field:%s", field)
	}
	c.indexes[gvk][field] = extract
	return nil
}

// steppedInformer is one kind's informer: converge's stepped informer
// underneath, the objects as the user's types on top.
type steppedInformer struct {
	gvk    schema.GroupVersionKind
	gr     schema.GroupResource
	scheme *runtime.Scheme
	inner  *controller.Informer
	report func(error) // a delivered object the user's type cannot hold
	// startRev is the revision of its first list, deletingRev that of the
	// last event it delivered that began an object's deletion
	// (RestartInThePast).
	startRev, deletingRev int64

	mu       sync.Mutex
	objs     map[string]client.Object
	handlers []*registration
}

var _ cache.Informer = (*steppedInformer)(nil)

func objectKey(namespace, name string) string {
	if namespace == "" {
		return name
	}
	return namespace + "/" + name
}

// typed turns one of converge's objects into the user's type (or
// unstructured, for a kind the scheme lacks) through its wire JSON.
func (i *steppedInformer) typed(o api.Object) (client.Object, error) {
	data, err := api.Marshal(o)
	if err != nil {
		return nil, err
	}
	var out client.Object = &unstructured.Unstructured{}
	if i.scheme.Recognizes(i.gvk) {
		ro, err := i.scheme.New(i.gvk)
		if err != nil {
			return nil, err
		}
		out = ro.(client.Object)
	}
	if u, ok := out.(*unstructured.Unstructured); ok {
		if err := u.UnmarshalJSON(data); err != nil {
			return nil, err
		}
	} else if err := kjson.UnmarshalCaseSensitivePreserveInts(data, out); err != nil {
		return nil, fmt.Errorf("decode %s %s: %w", i.gvk.Kind, api.Meta(o).Name, err)
	}
	out.GetObjectKind().SetGroupVersionKind(i.gvk)
	return out, nil
}

// onEvent applies one delivered watch event and tells the handlers, as a
// shared informer does: add, update with the old object, or delete.
func (i *steppedInformer) onEvent(ev controller.ListWatchEvent, _ *controller.Cache) {
	if ev.Object == nil {
		return
	}
	obj, err := i.typed(ev.Object)
	if err != nil {
		i.report(err)
		return
	}
	key := objectKey(obj.GetNamespace(), obj.GetName())
	i.mu.Lock()
	old := i.objs[key]
	if ev.Type == controller.Deleted {
		delete(i.objs, key)
	} else {
		i.objs[key] = obj
		if obj.GetDeletionTimestamp() != nil && (old == nil || old.GetDeletionTimestamp() == nil) {
			i.deletingRev = ev.Rev
		}
	}
	hs := slices.Clone(i.handlers)
	i.mu.Unlock()
	for _, h := range hs {
		switch {
		case ev.Type == controller.Deleted:
			h.h.OnDelete(obj)
		case old == nil:
			h.h.OnAdd(obj, false)
		default:
			h.h.OnUpdate(old, obj)
		}
	}
}

// resync rebuilds the typed objects from converge's cache after a list and
// tells the handlers the difference (notify), as a relist does: adds,
// updates of every object still there, deletes of the ones gone.
func (i *steppedInformer) resync(notify bool) error {
	next := map[string]client.Object{}
	for _, o := range i.inner.Cache().List() {
		t, err := i.typed(o)
		if err != nil {
			return err
		}
		next[objectKey(t.GetNamespace(), t.GetName())] = t
	}
	i.mu.Lock()
	prev := i.objs
	i.objs = next
	hs := slices.Clone(i.handlers)
	i.mu.Unlock()
	if !notify {
		return nil
	}
	for _, k := range sortedKeys(next) {
		for _, h := range hs {
			if old, ok := prev[k]; ok {
				h.h.OnUpdate(old, next[k])
			} else {
				h.h.OnAdd(next[k], false)
			}
		}
	}
	for _, k := range sortedKeys(prev) {
		if _, ok := next[k]; !ok {
			for _, h := range hs {
				h.h.OnDelete(toolscache.DeletedFinalStateUnknown{Key: k, Obj: prev[k]})
			}
		}
	}
	return nil
}

// replay sends every object to the handlers as an update of itself: a
// resync, after which a controller at its fixed point writes nothing.
func (i *steppedInformer) replay() {
	i.mu.Lock()
	objs := i.objs
	hs := slices.Clone(i.handlers)
	i.mu.Unlock()
	for _, k := range sortedKeys(objs) {
		for _, h := range hs {
			h.h.OnUpdate(objs[k], objs[k])
		}
	}
}

func sortedKeys(m map[string]client.Object) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func (i *steppedInformer) get(key client.ObjectKey) (client.Object, bool) {
	i.mu.Lock()
	defer i.mu.Unlock()
	o, ok := i.objs[objectKey(key.Namespace, key.Name)]
	return o, ok
}

func (i *steppedInformer) list() []client.Object {
	i.mu.Lock()
	defer i.mu.Unlock()
	out := make([]client.Object, 0, len(i.objs))
	for _, k := range sortedKeys(i.objs) {
		out = append(out, i.objs[k])
	}
	return out
}

// copyInto writes a deep copy of src into dst, of the same type,
// unstructured, or its metadata alone (a metadata-only watch's).
func copyInto(src client.Object, dst client.Object) error {
	if p, ok := dst.(*metav1.PartialObjectMetadata); ok {
		*p = *partial(src)
		return nil
	}
	if u, ok := dst.(*unstructured.Unstructured); ok {
		m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(src)
		if err != nil {
			return err
		}
		u.Object = m
		return nil
	}
	sv, dv := reflect.ValueOf(src.DeepCopyObject()), reflect.ValueOf(dst)
	if sv.Type() != dv.Type() {
		return fmt.Errorf("cache holds %T, asked for %T", src, dst)
	}
	dv.Elem().Set(sv.Elem())
	return nil
}

// partial is o's type and metadata, as a metadata-only informer holds it
// (apimachinery's AsPartialObjectMetadata, over a copy: the informer's
// object is shared).
func partial(o client.Object) *metav1.PartialObjectMetadata {
	p := meta.AsPartialObjectMetadata(o.DeepCopyObject().(client.Object))
	p.SetGroupVersionKind(o.GetObjectKind().GroupVersionKind())
	return p
}

// AddEventHandler registers h and sends it every object already cached,
// as client-go does for a handler added to a running informer; the order
// is by key, so that the queue sees the same adds on every run.
func (i *steppedInformer) AddEventHandler(h toolscache.ResourceEventHandler) (toolscache.ResourceEventHandlerRegistration, error) {
	r := &registration{h: h}
	i.mu.Lock()
	i.handlers = append(i.handlers, r)
	objs := i.objs
	i.mu.Unlock()
	for _, k := range sortedKeys(objs) {
		h.OnAdd(objs[k], true)
	}
	return r, nil
}

func (i *steppedInformer) AddEventHandlerWithResyncPeriod(h toolscache.ResourceEventHandler, _ time.Duration) (toolscache.ResourceEventHandlerRegistration, error) {
	return i.AddEventHandler(h)
}

func (i *steppedInformer) AddEventHandlerWithOptions(h toolscache.ResourceEventHandler, _ toolscache.HandlerOptions) (toolscache.ResourceEventHandlerRegistration, error) {
	return i.AddEventHandler(h)
}

func (i *steppedInformer) RemoveEventHandler(r toolscache.ResourceEventHandlerRegistration) error {
	i.mu.Lock()
	defer i.mu.Unlock()
	i.handlers = slices.DeleteFunc(i.handlers, func(x *registration) bool { return x == r })
	return nil
}

func (i *steppedInformer) AddIndexers(toolscache.Indexers) error { return nil }
func (i *steppedInformer) HasSynced() bool                       { return true }
func (i *steppedInformer) HasSyncedChecker() toolscache.DoneChecker {
	return doneChecker{}
}
func (i *steppedInformer) IsStopped() bool { return false }

// registration is a handler's registration; the handler has every
// cached object once AddEventHandler returns.
type registration struct {
	h toolscache.ResourceEventHandler
}

func (*registration) HasSynced() bool                          { return true }
func (*registration) HasSyncedChecker() toolscache.DoneChecker { return doneChecker{} }

var closed = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

type doneChecker struct{}

func (doneChecker) Name() string          { return "converge stepped informer" }
func (doneChecker) Done() <-chan struct{} { return closed }
