package cluster

import (
	"context"
	"fmt"
	"testing"

	"github.com/converge-dev/converge/impl/store/storetest"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// floorValue is about the size of a Pod as the registry stores it.
var floorValue = `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"bench","namespace":"default","labels":{"app":"myapp"}},"spec":{"nodeName":"node-1","containers":[{"name":"c","image":"nginx:1"}]}}`

var floorRuns int

// BenchmarkRawEtcdCAS is the floor for the stepped benchmarks, measured on
// the same embedded etcd and the same shared client in the same run: one
// clientv3 Txn comparing the key's mod revision, then a put.
func BenchmarkRawEtcdCAS(b *testing.B) {
	c := storetest.Client(b)
	ctx := context.Background()
	floorRuns++
	key := fmt.Sprintf("/bench-floor-%d/cas", floorRuns)
	resp, err := c.Put(ctx, key, floorValue)
	if err != nil {
		b.Fatal(err)
	}
	rev := resp.Header.Revision
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		txn, err := c.Txn(ctx).
			If(clientv3.Compare(clientv3.ModRevision(key), "=", rev)).
			Then(clientv3.OpPut(key, floorValue)).
			Commit()
		if err != nil {
			b.Fatalf("raw CAS at revision %d: %v", rev, err)
		}
		if !txn.Succeeded {
			b.Fatalf("raw CAS at revision %d: compare failed", rev)
		}
		rev = txn.Header.Revision
	}
}
