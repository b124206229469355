package store_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/converge-dev/converge/impl/etcd"
	"github.com/converge-dev/converge/impl/store"
	"github.com/converge-dev/converge/impl/store/storetest"
	clientv3 "go.etcd.io/etcd/client/v3"
)

var externalRuns atomic.Int64

// An external cluster is reached only through its gRPC endpoints; this test
// uses the store that way and checks the documented key layout from a second,
// independent client.
func TestStoreOverSeparatelyDialledClientUsesDocumentedLayout(t *testing.T) {
	t.Parallel()
	ctx := ctxT(t)
	ext, err := etcd.Dial(storetest.Endpoints(t))
	if err != nil {
		t.Fatalf("Dial: %v", err)
	}
	defer ext.Close()
	prefix := fmt.Sprintf("/external-%d", externalRuns.Add(1)) // -count=N reuses the etcd
	s := store.New(ext, prefix)

	start, err := s.Rev(ctx)
	if err != nil {
		t.Fatal(err)
	}
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ch := s.Watch(wctx, "pods", "", start)

	ra := mustCreate(t, s, pod("ns", "a"), "A")
	mustCreate(t, s, store.Key{Resource: "nodes", Name: "n1"}, "N")
	g := mustGenerate(t, s, "pods", "ns", "g-")

	raw, err := storetest.Client(t).Get(ctx, prefix+"/", clientv3.WithPrefix())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, kv := range raw.Kvs {
		got = append(got, strings.TrimPrefix(fmt.Sprintf("%s=%s", kv.Key, kv.Value), prefix))
	}
	want := []string{
		"/generatename/pods/ns/g-=1",
		"/registry/nodes/n1=N",
		"/registry/pods/ns/a=A",
		`/registry/pods/ns/g-0={"name":"g-0"}`,
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("etcd keys = %v, want %v", got, want)
	}
	expectEvents(t, ctx, ch, fmt.Sprintf("ADDED pods/ns/a=A@%d", ra),
		fmt.Sprintf("ADDED pods/ns/g-0={\"name\":\"g-0\"}@%d", g.Rev))
}

func TestCorruptGenerateCounterIsAnErrorNotAPanic(t *testing.T) {
	t.Parallel()
	ctx := ctxT(t)
	prefix := fmt.Sprintf("/external-%d", externalRuns.Add(1))
	if _, err := storetest.Client(t).Put(ctx, prefix+"/generatename/pods/ns/x-", "garbage"); err != nil {
		t.Fatal(err)
	}
	s := store.New(storetest.Client(t), prefix)
	if _, err := s.CreateGenerated(ctx, "pods", "ns", "x-", render); err == nil || !strings.Contains(err.Error(), "garbage") {
		t.Fatalf("CreateGenerated over a corrupt counter: err = %v, want one naming the bad value", err)
	}
}

func TestWatchEndsWithErrorWhenClientCloses(t *testing.T) {
	t.Parallel()
	ctx := ctxT(t)
	ext, err := etcd.Dial(storetest.Endpoints(t))
	if err != nil {
		t.Fatal(err)
	}
	s := store.New(ext, fmt.Sprintf("/external-%d", externalRuns.Add(1)))
	r := mustCreate(t, s, pod("ns", "a"), "A")
	ch := s.Watch(ctx, "pods", "", r-1)
	expectEvents(t, ctx, ch, fmt.Sprintf("ADDED pods/ns/a=A@%d", r))
	ext.Close()
	ev := next(t, ctx, ch)
	if ev.Err == nil || errors.Is(ev.Err, store.ErrGone) {
		t.Fatalf("after the client closed got %s, want a non-ErrGone error event", brief(ev))
	}
	if _, ok := <-ch; ok {
		t.Fatal("channel open after the error event")
	}
}
