package store

import clientv3 "go.etcd.io/etcd/client/v3"

// ReadsAreSerializable reports whether s serves its reads without raft's
// read index.
func ReadsAreSerializable(s *Store) bool {
	return clientv3.OpGet("k", s.reads()...).IsSerializable()
}

// CompactedLocally records a compaction to rev as Compact does, without
// asking etcd: what a Store sees while the member serving it has not yet
// applied its compaction.
func CompactedLocally(s *Store, rev int64) { s.compacted.Store(rev) }
