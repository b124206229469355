package store

import clientv3 "go.etcd.io/etcd/client/v3"

// ReadsAreSerializable reports whether s serves its reads without raft's
// read index.
func ReadsAreSerializable(s *Store) bool {
	return clientv3.OpGet("k", s.reads()...).IsSerializable()
}
