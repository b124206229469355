package project

import (
	"maps"
	"sync"
)

// UIDs maps Kubernetes uid strings to the model's int64 UIDs: the first uid
// seen is 1, the next 2, and so on; "" is 0. One UIDs serves one cluster, so
// an owner reference and its owner agree on the number. The numbers are
// masked in comparisons, so first-seen order need not match the model's.
type UIDs struct {
	mu   sync.Mutex
	ids  map[string]int64
	strs []string // strs[id-1] is the uid numbered id
	// shared holds the string maps projected last (Shared).
	shared []map[string]string
}

// sharedMaps is how many distinct maps Shared remembers.
const sharedMaps = 16

// NewUIDs returns an empty mapping.
func NewUIDs() *UIDs { return &UIDs{ids: map[string]int64{}} }

// Of returns the number of uid, numbering it if it is new.
func (u *UIDs) Of(uid string) int64 {
	if uid == "" {
		return 0
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	if id, ok := u.ids[uid]; ok {
		return id
	}
	if u.ids == nil { // the zero UIDs is usable
		u.ids = map[string]int64{}
	}
	u.strs = append(u.strs, uid)
	id := int64(len(u.strs))
	u.ids[uid] = id
	return id
}

// Shared returns a map equal to m for a model object, the same one as
// for the model objects projected lately with an equal map; nil for an
// empty m. Model objects never change their maps. A replica set's pods all
// carry its template's labels, so its controller, which matches every pod
// against its selector on each sync, mostly finds the very map it holds
// (model.matches), and the projection allocates no map for them.
func (u *UIDs) Shared(m map[string]string) map[string]string {
	if len(m) == 0 {
		return nil
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	for _, s := range u.shared {
		if maps.Equal(s, m) {
			return s
		}
	}
	c := maps.Clone(m)
	if len(u.shared) == sharedMaps {
		u.shared = append(u.shared[:0], u.shared[1:]...)
	}
	u.shared = append(u.shared, c)
	return c
}

// String returns the uid numbered id, or "" if id is 0 or was never handed out.
func (u *UIDs) String(id int64) string {
	u.mu.Lock()
	defer u.mu.Unlock()
	if id <= 0 || id > int64(len(u.strs)) {
		return ""
	}
	return u.strs[id-1]
}
