package controller

import (
	"cmp"
	"fmt"
	"slices"
	"sync"

	"github.com/converge-dev/converge/impl/api"
)

// IndexFunc returns the index values of an object (none is fine).
type IndexFunc func(api.Object) []string

// Cache is an informer's local copy of one resource, keyed by
// namespace/name, with optional secondary indices. It is safe for
// concurrent use. Objects are shared, not copied: callers must not mutate
// them (use api.DeepCopy first).
type Cache struct {
	mu       sync.RWMutex
	objs     map[string]api.Object
	indexers map[string]IndexFunc
	// indices[index][value] is the set of keys with that value.
	indices map[string]map[string]map[string]struct{}
	// mixed: the cache holds several resources (a store union's), whose
	// objects may share a namespace and name.
	mixed bool
}

func newCache(mixed bool) *Cache {
	return &Cache{
		mixed:    mixed,
		objs:     map[string]api.Object{},
		indexers: map[string]IndexFunc{},
		indices:  map[string]map[string]map[string]struct{}{},
	}
}

// Get returns the cached object, if any.
func (c *Cache) Get(namespace, name string) (api.Object, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	o, ok := c.objs[Key(namespace, name)]
	return o, ok
}

// Len is the number of cached objects.
func (c *Cache) Len() int {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return len(c.objs)
}

// List returns every cached object sorted by namespace, then name.
func (c *Cache) List() []api.Object {
	c.mu.RLock()
	defer c.mu.RUnlock()
	out := make([]api.Object, 0, len(c.objs))
	for _, o := range c.objs {
		out = append(out, o)
	}
	sortObjects(out)
	return out
}

// AddIndexer registers an index and indexes what is already cached.
func (c *Cache) AddIndexer(name string, f IndexFunc) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, dup := c.indexers[name]; dup {
		return fmt.Errorf("%w: %q", ErrDuplicateIndex, name)
	}
	c.indexers[name] = f
	c.indices[name] = map[string]map[string]struct{}{}
	for k, o := range c.objs {
		c.indexOne(name, k, o)
	}
	return nil
}

// ByIndex returns the objects whose index values include value, sorted by
// namespace, then name.
func (c *Cache) ByIndex(index, value string) ([]api.Object, error) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	idx, ok := c.indices[index]
	if !ok {
		return nil, fmt.Errorf("%w: %q", ErrUnknownIndex, index)
	}
	out := make([]api.Object, 0, len(idx[value]))
	for k := range idx[value] {
		out = append(out, c.objs[k])
	}
	sortObjects(out)
	return out, nil
}

// put stores obj and returns the previous object under its key.
func (c *Cache) put(obj api.Object) (api.Object, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	k := c.key(obj)
	old, had := c.objs[k]
	if had {
		c.unindex(k, old)
	}
	c.objs[k] = obj
	for name := range c.indexers {
		c.indexOne(name, k, obj)
	}
	return old, had
}

// remove deletes the object under obj's key and returns what was cached.
func (c *Cache) remove(obj api.Object) (api.Object, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	k := c.key(obj)
	old, had := c.objs[k]
	if had {
		c.unindex(k, old)
		delete(c.objs, k)
	}
	return old, had
}

// replace swaps the whole content for objs and returns the old content.
func (c *Cache) replace(objs []api.Object) map[string]api.Object {
	c.mu.Lock()
	defer c.mu.Unlock()
	old := c.objs
	c.objs = make(map[string]api.Object, len(objs))
	for name := range c.indices {
		c.indices[name] = map[string]map[string]struct{}{}
	}
	for _, o := range objs {
		k := c.key(o)
		c.objs[k] = o
		for name := range c.indexers {
			c.indexOne(name, k, o)
		}
	}
	return old
}

func (c *Cache) indexOne(name, key string, obj api.Object) {
	idx := c.indices[name]
	for _, v := range c.indexers[name](obj) {
		set := idx[v]
		if set == nil {
			set = map[string]struct{}{}
			idx[v] = set
		}
		set[key] = struct{}{}
	}
}

func (c *Cache) unindex(key string, obj api.Object) {
	for name, f := range c.indexers {
		idx := c.indices[name]
		for _, v := range f(obj) {
			delete(idx[v], key)
			if len(idx[v]) == 0 {
				delete(idx, v)
			}
		}
	}
}

// sortObjects orders by namespace, then name (not by the joined key, whose
// '/' would sort "a-b/x" before "a/x"), then kind.
func sortObjects(objs []api.Object) {
	slices.SortFunc(objs, compareObjects)
}

func compareObjects(a, b api.Object) int {
	am, bm := api.Meta(a), api.Meta(b)
	return cmp.Or(cmp.Compare(am.Namespace, bm.Namespace), cmp.Compare(am.Name, bm.Name), cmp.Compare(kindOf(a), kindOf(b)))
}

// key is obj's key in the cache: namespace/name (Key), but prefixed
// with its apiVersion and kind when one informer follows several kinds
// (every custom resource, store.AllCustom, or a store union), as two kinds
// may share a name. Get finds the built-ins, which no such informer holds.
func (c *Cache) key(obj api.Object) string {
	if _, custom := obj.(*api.CustomObject); custom || c.mixed {
		return kindOf(obj) + "/" + KeyOf(obj)
	}
	return KeyOf(obj)
}

func kindOf(obj api.Object) string {
	tm := api.TypeOf(obj)
	return tm.APIVersion + "/" + tm.Kind
}
