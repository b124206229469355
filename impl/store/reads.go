package store

import (
	"context"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// readMode is whether the store's reads may skip raft's read index.
type readMode struct {
	once   sync.Once
	single bool
}

// reads returns opts for one of the store's reads, serializable when the
// etcd has one member. That member answers a write only once it has
// applied it, so a read served from its applied state already sees every
// write that has returned, and it skips the read-index round through raft
// that a linearizable read costs (a tenth of an operator check's time).
// With several members a follower may lag, and reads stay linearizable.
func (s *Store) reads(opts ...clientv3.OpOption) []clientv3.OpOption {
	s.mode.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		resp, err := s.c.MemberList(ctx)
		s.mode.single = err == nil && len(resp.Members) == 1
	})
	if s.mode.single {
		return append(opts, clientv3.WithSerializable())
	}
	return opts
}
