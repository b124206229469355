package project

import "sync"

// UIDs maps Kubernetes uid strings to the model's int64 UIDs: the first uid
// seen is 1, the next 2, and so on; "" is 0. One UIDs serves one cluster, so
// an owner reference and its owner agree on the number. The numbers are
// masked in comparisons, so first-seen order need not match the model's.
type UIDs struct {
	mu   sync.Mutex
	ids  map[string]int64
	strs []string // strs[id-1] is the uid numbered id
}

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

// String returns the uid numbered id, or "" if id is 0 or was never handed out.
func (u *UIDs) String(id int64) string {
	u.mu.Lock()
	defer u.mu.Unlock()
	if id <= 0 || id > int64(len(u.strs)) {
		return ""
	}
	return u.strs[id-1]
}
