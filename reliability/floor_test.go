package reliability

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/converge-dev/converge/impl/etcd"
)

// rawEtcdWrites is the floor the load is read against: clients goroutines
// putting ~200-byte values for d on an embedded member configured as
// converge up's (fsync on, in-process client). It returns puts per second.
func rawEtcdWrites(tb testing.TB, clients int, d time.Duration) float64 {
	e, err := etcd.StartEmbedded(etcd.Config{DataDir: tb.TempDir(), Fsync: true})
	if err != nil {
		tb.Fatal(err)
	}
	defer e.Close()
	c, err := e.InProcessClient()
	if err != nil {
		tb.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	value := string(make([]byte, 200))
	var puts atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	for i := 0; i < clients; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 0; ctx.Err() == nil; n++ {
				if _, err := c.Put(ctx, fmt.Sprintf("/floor/%d/%d", i, n%16), value); err == nil {
					puts.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	return float64(puts.Load()) / time.Since(start).Seconds()
}
