package etcd_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/converge-dev/converge/impl/etcd"
	"github.com/converge-dev/converge/impl/store/storetest"
)

// The compactor keeps a campaign's history from filling the database: each
// tick compacts up to the revision of the tick before, and nothing newer.
func TestCompactHistoryCompactsUpToTheTickBefore(t *testing.T) {
	c := storetest.IsolatedClient(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	put := func() int64 {
		resp, err := c.Put(ctx, "/k", "v")
		if err != nil {
			t.Fatal(err)
		}
		return resp.Header.Revision
	}
	old := put()
	// Two ticks must pass between a put and its read for the put to be
	// compacted: wide enough that a loaded machine does not fail the test.
	stop := etcd.CompactHistory(c, 200*time.Millisecond)
	defer stop()
	for {
		recent := put()
		if _, err := c.Get(ctx, "/k", clientv3.WithRev(old)); errors.Is(err, rpctypes.ErrCompacted) {
			// Only the tick before's revision is gone: the last put stays readable.
			if _, err := c.Get(ctx, "/k", clientv3.WithRev(recent)); err != nil {
				t.Fatalf("the latest revision %d was compacted too: %v", recent, err)
			}
			return
		}
		if ctx.Err() != nil {
			t.Fatalf("revision %d was never compacted", old)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
