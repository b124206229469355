package registry

import (
	"sync"

	"github.com/converge-dev/converge/impl/store"
)

// recentValues remembers the stored bytes this registry last wrote or read
// for each key, with their mod revision. An update whose resourceVersion
// precondition names that revision can start from them instead of reading
// the key again: a key's value at a given revision never changes, and the
// write's CAS on that revision still catches anyone who wrote since. So
// the cache can be stale, but never wrong.
type recentValues struct {
	mu sync.Mutex
	m  map[store.Key]store.Object
}

// recentCap bounds the memory; past it an arbitrary entry makes room.
const recentCap = 16384

func (c *recentValues) put(k store.Key, value []byte, rev int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = make(map[store.Key]store.Object)
	}
	if _, ok := c.m[k]; !ok && len(c.m) >= recentCap {
		for old := range c.m {
			delete(c.m, old)
			break
		}
	}
	c.m[k] = store.Object{Key: k, Value: value, Rev: rev}
}

// at returns the value of k at revision rev, if that is what it holds.
func (c *recentValues) at(k store.Key, rev int64) (store.Object, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	o, ok := c.m[k]
	return o, ok && rev != 0 && o.Rev == rev
}

func (c *recentValues) forget(k store.Key) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.m, k)
}
