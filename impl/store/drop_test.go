package store_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/converge-dev/converge/impl/store"
	"github.com/converge-dev/converge/impl/store/storetest"
)

// A campaign drops each check's store: every key under its prefix goes,
// generateName counters too, and a store whose prefix extends it ("/p/1"
// and "/p/10") keeps its own.
func TestDropDeletesOnlyItsOwnPrefix(t *testing.T) {
	ctx := ctxT(t)
	base := fmt.Sprintf("/drop/%d", time.Now().UnixNano()) // -count=2 shares the etcd
	a, b := store.New(storetest.Client(t), base+"/1"), store.New(storetest.Client(t), base+"/10")
	k := store.Key{Resource: "pods", Namespace: "ns", Name: "x"}
	for _, s := range []*store.Store{a, b} {
		if _, err := s.Create(ctx, k, []byte("v")); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := a.CreateGenerated(ctx, "pods", "ns", "web-", func(name string) ([]byte, error) { return []byte(name), nil }); err != nil {
		t.Fatal(err)
	}
	if err := a.Drop(ctx); err != nil {
		t.Fatal(err)
	}
	if objs, _, _, err := a.List(ctx, "pods", "", store.ListOptions{}); err != nil || len(objs) != 0 {
		t.Fatalf("after Drop the store lists %d pods (err %v); want none", len(objs), err)
	}
	resp, err := storetest.Client(t).Get(ctx, base+"/1/", clientv3.WithPrefix(), clientv3.WithCountOnly())
	if err != nil || resp.Count != 0 {
		t.Fatalf("after Drop %d keys are left under the prefix (err %v)", resp.Count, err)
	}
	if _, err := b.Get(ctx, k); err != nil {
		t.Fatalf("dropping %s/1 took %s/10's object: %v", base, base, err)
	}
	if err := store.New(storetest.Client(t), "").Drop(ctx); !errors.Is(err, store.ErrInvalid) {
		t.Fatalf("Drop of a store without a prefix: err = %v; want ErrInvalid", err)
	}
}
