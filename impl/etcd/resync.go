package etcd

import (
	"time"
	_ "unsafe" // go:linkname

	_ "go.etcd.io/etcd/server/v3/storage/mvcc" // where watchResyncPeriod lives
)

// watchResyncPeriod is how often the embedded etcd's watchable store
// catches up the watchers that started from a past revision, 100 ms in
// etcd. kube-apiserver serves such a watch from its watch cache at once;
// converge has none, so a watch from a past revision (an informer's relist
// against a lagging apiserver, a lost event looked up again) would wait up
// to 100 ms for its first events. Each look costs a lock and a length
// check when no watcher lags.
//
//go:linkname watchResyncPeriod go.etcd.io/etcd/server/v3/storage/mvcc.watchResyncPeriod
var watchResyncPeriod time.Duration

func init() { watchResyncPeriod = 2 * time.Millisecond }
