package etcd

import (
	"context"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// CompactHistory compacts the etcd behind c every interval, up to the
// revision it had one interval before, as kube-apiserver's compactor does
// (every five minutes there). A campaign of checks writes a gigabyte of
// history in a quarter of an hour, and etcd refuses every write once its
// database reaches its quota (2 GiB); compacted pages are written again
// instead. stop ends it and waits for it.
func CompactHistory(c *clientv3.Client, every time.Duration) (stop func()) {
	done, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		tick := time.NewTicker(every)
		defer tick.Stop()
		var last int64 // the revision at the previous tick
		for {
			select {
			case <-done:
				return
			case <-tick.C:
			}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			if last > 0 {
				_, _ = c.Compact(ctx, last) // ErrCompacted: someone compacted further
			}
			if resp, err := c.Get(ctx, "/", clientv3.WithCountOnly()); err == nil {
				last = resp.Header.Revision
			}
			cancel()
		}
	}()
	var once sync.Once
	return func() { once.Do(func() { close(done); <-stopped }) }
}
