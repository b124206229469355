package storetest

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	clientv3 "go.etcd.io/etcd/client/v3"
)

var rawCASRuns atomic.Int64

// BenchRawCAS is the raw etcd floor that converge's benchmarks are read
// against: b.N clientv3 Txns, each comparing a key's mod revision and then
// putting value, on the test binary's etcd and shared client. Each package
// calls it from its own BenchmarkRawEtcdCAS so the floor is measured in the
// same run as the figures compared with it.
func BenchRawCAS(b *testing.B, value string) {
	c := Client(b)
	ctx := context.Background()
	key := fmt.Sprintf("/bench-raw-cas/%d", rawCASRuns.Add(1))
	resp, err := c.Put(ctx, key, value)
	if err != nil {
		b.Fatal(err)
	}
	rev := resp.Header.Revision
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		txn, err := c.Txn(ctx).
			If(clientv3.Compare(clientv3.ModRevision(key), "=", rev)).
			Then(clientv3.OpPut(key, value)).
			Commit()
		if err != nil || !txn.Succeeded {
			b.Fatalf("raw CAS at revision %d: succeeded=%v err=%v", rev, txn != nil && txn.Succeeded, err)
		}
		rev = txn.Header.Revision
	}
}
