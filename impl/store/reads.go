package store

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// readMode is whether the store's reads may skip raft's read index, and
// what those reads have been shown to see.
type readMode struct {
	once    sync.Once
	single  bool
	applied atomic.Int64 // a revision the member is known to have applied
}

// reads returns opts for one of the store's reads, serializable when the
// etcd has one member. That member answers a write only once it has
// applied it, so a read served from its applied state already sees every
// write that has returned, and it skips the read-index round through raft
// that a linearizable read costs (a tenth of an operator check's time).
// With several members a follower may lag, and reads stay linearizable.
func (s *Store) reads(opts ...clientv3.OpOption) []clientv3.OpOption {
	if s.serializable() {
		return append(opts, clientv3.WithSerializable())
	}
	return opts
}

func (s *Store) serializable() bool {
	s.mode.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		resp, err := s.c.MemberList(ctx)
		s.mode.single = err == nil && len(resp.Members) == 1
	})
	return s.mode.single
}

// awaitApplied returns once the store's reads see revision rev. A watch
// event can reach its reader before its revision is readable: etcd
// notifies watchers while the write's transaction is still open, and the
// revision shows to reads only when it closes. A linearizable read waits
// for the apply through raft's read index; a serializable one does not,
// so a reader that read what an event told it of could miss the very
// write the event reported (a CRD controller once took a new CRD for
// deleted so). Watch calls this before it delivers an event.
func (s *Store) awaitApplied(ctx context.Context, rev int64) {
	if s.mode.applied.Load() >= rev || !s.serializable() {
		return
	}
	for ctx.Err() == nil {
		resp, err := s.c.Get(ctx, s.prefix+"/registry/", clientv3.WithSerializable(), clientv3.WithCountOnly())
		if err != nil {
			return // the reader's own reads will fail alike
		}
		raise(&s.mode.applied, resp.Header.Revision)
		if resp.Header.Revision >= rev {
			return
		}
		time.Sleep(10 * time.Microsecond) // the transaction is closing
	}
}
