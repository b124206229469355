package storetest_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/converge-dev/converge/impl/store"
	"github.com/converge-dev/converge/impl/store/storetest"
)

func TestMain(m *testing.M) { storetest.Main(m) }

func TestStoresAreIsolatedButShareOneEtcd(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	a, b := storetest.Store(t), storetest.Store(t)
	k := store.Key{Resource: "pods", Namespace: "ns", Name: "x"}
	if _, err := a.Create(ctx, k, []byte("a")); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Get(ctx, k); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("store b sees store a's object: err = %v", err)
	}
	if _, err := b.Create(ctx, k, []byte("b")); err != nil {
		t.Fatalf("same key in another store: %v", err)
	}
	if storetest.Client(t) != storetest.Client(t) || storetest.GRPCClient(t) != storetest.GRPCClient(t) {
		t.Fatal("Client or GRPCClient returned two different clients; want one shared client each")
	}
	if storetest.Client(t) == storetest.GRPCClient(t) {
		t.Fatal("Client and GRPCClient are the same client; want in-process and gRPC")
	}
	eps := storetest.Endpoints(t)
	if len(eps) != 1 || !strings.HasPrefix(eps[0], "http://127.0.0.1:") {
		t.Fatalf("Endpoints = %v", eps)
	}
}

func TestIsolatedHasItsOwnRevisions(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s := storetest.Isolated(t)
	rev, err := s.Rev(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// A fresh etcd starts at revision 1, whatever other tests wrote elsewhere.
	if rev != 1 {
		t.Fatalf("isolated etcd at revision %d, want a fresh one at 1", rev)
	}
}
