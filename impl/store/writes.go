package store

import (
	"context"
	"sync/atomic"
)

// Writes hears the revisions of the writes a Store commits under a
// context (WithWrites). A caller in the same process learns from it the
// revision of a removal that an update made when it took an object's last
// finalizer: the update's answer, as upstream's, carries the revision it
// was judged at, and a watch from there would wait for etcd to sync an
// unsynced watcher (etcd's resync period).
type Writes struct{ last atomic.Int64 }

type writesKey struct{}

// WithWrites returns ctx under which the Store's writes report to w.
func WithWrites(ctx context.Context, w *Writes) context.Context {
	return context.WithValue(ctx, writesKey{}, w)
}

// Take returns the revision of the last write since the last Take, or 0
// when there was none.
func (w *Writes) Take() int64 { return w.last.Swap(0) }

// wrote notes a write committed at rev: the member has applied it (its
// answer comes after), and ctx's Writes, if any, hears of it.
func (s *Store) wrote(ctx context.Context, rev int64) {
	raise(&s.mode.applied, rev)
	if w, _ := ctx.Value(writesKey{}).(*Writes); w != nil {
		raise(&w.last, rev)
	}
}

// raise sets v to rev if rev is higher.
func raise(v *atomic.Int64, rev int64) {
	for {
		last := v.Load()
		if rev <= last || v.CompareAndSwap(last, rev) {
			return
		}
	}
}
