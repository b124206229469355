package store_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/converge-dev/converge/impl/store/storetest"
)

// All benchmarks share storetest's embedded etcd and its one gRPC client, so
// the Store figures can be read as ratios against the raw ones.

var benchRuns atomic.Int64

func benchKey(name string) string {
	return fmt.Sprintf("/bench-%d/%s", benchRuns.Add(1), name)
}

var benchValue = []byte(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"bench","namespace":"default"},"spec":{"containers":[{"name":"c","image":"nginx"}]}}`)

// BenchmarkRawEtcdCAS is the floor for BenchmarkStoreCAS.
func BenchmarkRawEtcdCAS(b *testing.B) { storetest.BenchRawCAS(b, string(benchValue)) }

// BenchmarkStoreCAS is Store.Update with expectRev on one key.
func BenchmarkStoreCAS(b *testing.B) {
	s := storetest.Store(b)
	ctx := context.Background()
	k := pod("default", "bench")
	rev, err := s.Create(ctx, k, benchValue)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if rev, err = s.Update(ctx, k, benchValue, rev); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRawEtcdPut is sequential raw write latency.
func BenchmarkRawEtcdPut(b *testing.B) {
	c := storetest.Client(b)
	ctx := context.Background()
	key := benchKey("put")
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := c.Put(ctx, key, string(benchValue)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRawEtcdPutParallel is raw write throughput on distinct keys: the
// "etcd floor" for concurrent workloads.
func BenchmarkRawEtcdPutParallel(b *testing.B) {
	c := storetest.Client(b)
	ctx := context.Background()
	base := benchKey("parallel")
	var workers atomic.Int64
	// Many writers per core, as controllers are: etcd batches concurrent writes.
	b.SetParallelism(16)
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		key := fmt.Sprintf("%s/%d", base, workers.Add(1))
		for pb.Next() {
			if _, err := c.Put(ctx, key, string(benchValue)); err != nil {
				b.Error(err)
				return
			}
		}
	})
}
