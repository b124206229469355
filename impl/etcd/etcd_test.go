package etcd

import (
	"context"
	"errors"
	"fmt"
	"net"
	"runtime"
	"strings"
	"testing"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
)

func startT(t *testing.T, cfg Config) *Embedded {
	t.Helper()
	e, err := StartEmbedded(cfg)
	if err != nil {
		t.Fatalf("StartEmbedded: %v", err)
	}
	t.Cleanup(e.Close)
	return e
}

func clientT(t *testing.T, e *Embedded) *clientv3.Client {
	t.Helper()
	c, err := e.Client()
	if err != nil {
		t.Fatalf("Client: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func inProcessClientT(t *testing.T, e *Embedded) *clientv3.Client {
	t.Helper()
	c, err := e.InProcessClient()
	if err != nil {
		t.Fatalf("InProcessClient: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func TestRestartOnSameDataDirKeepsData(t *testing.T) {
	dir := t.TempDir()
	ctx := ctxT(t)

	first, err := StartEmbedded(Config{DataDir: dir, Fsync: true})
	if err != nil {
		t.Fatalf("first start: %v", err)
	}
	c1, err := first.Client()
	if err != nil {
		t.Fatal(err)
	}
	var lastRev int64
	for i := 0; i < 3; i++ {
		resp, err := c1.Put(ctx, fmt.Sprintf("/k/%d", i), fmt.Sprintf("v%d", i))
		if err != nil {
			t.Fatalf("put: %v", err)
		}
		lastRev = resp.Header.Revision
	}
	c1.Close()
	first.Close()

	second := startT(t, Config{DataDir: dir, Fsync: true})
	c2 := clientT(t, second)
	resp, err := c2.Get(ctx, "/k/", clientv3.WithPrefix())
	if err != nil {
		t.Fatalf("get after restart: %v", err)
	}
	if len(resp.Kvs) != 3 {
		t.Fatalf("after restart found %d keys, want 3", len(resp.Kvs))
	}
	for i, kv := range resp.Kvs {
		if want := fmt.Sprintf("v%d", i); string(kv.Value) != want {
			t.Errorf("key %s = %q, want %q", kv.Key, kv.Value, want)
		}
	}
	if resp.Header.Revision != lastRev {
		t.Errorf("revision after restart = %d, want %d (history must survive)", resp.Header.Revision, lastRev)
	}
}

func TestDialReachesEmbeddedOverGRPC(t *testing.T) {
	e := startT(t, Config{DataDir: t.TempDir()})
	ctx := ctxT(t)
	eps := e.Endpoints()
	if len(eps) != 1 || !strings.HasPrefix(eps[0], "http://127.0.0.1:") {
		t.Fatalf("Endpoints() = %v, want one http://127.0.0.1:<port>", eps)
	}
	writer := clientT(t, e)
	if _, err := writer.Put(ctx, "/hello", "world"); err != nil {
		t.Fatal(err)
	}
	ext, err := Dial(eps)
	if err != nil {
		t.Fatalf("Dial(%v): %v", eps, err)
	}
	defer ext.Close()
	resp, err := ext.Get(ctx, "/hello")
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Kvs) != 1 || string(resp.Kvs[0].Value) != "world" {
		t.Fatalf("external client read %v, want world", resp.Kvs)
	}
}

func TestDialUnreachableFailsClearly(t *testing.T) {
	// A port that was free a moment ago has nobody listening.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	_, err = dial([]string{"http://" + addr}, 300*time.Millisecond)
	if !errors.Is(err, ErrUnreachable) {
		t.Fatalf("dial to dead endpoint: err = %v, want ErrUnreachable", err)
	}
	if !strings.Contains(err.Error(), addr) {
		t.Errorf("error %q does not name the endpoint %s", err, addr)
	}
}

func TestDialWithoutEndpointsIsInvalid(t *testing.T) {
	if _, err := Dial(nil); !errors.Is(err, ErrInvalidConfig) {
		t.Fatalf("Dial(nil) err = %v, want ErrInvalidConfig", err)
	}
}

func TestStartEmbeddedRejectsBadConfig(t *testing.T) {
	cases := map[string]Config{
		"no data dir":    {},
		"bad client url": {DataDir: t.TempDir(), ClientURL: "ftp://127.0.0.1:1"},
		"no host":        {DataDir: t.TempDir(), PeerURL: "http://"},
	}
	for name, cfg := range cases {
		if _, err := StartEmbedded(cfg); !errors.Is(err, ErrInvalidConfig) {
			t.Errorf("%s: err = %v, want ErrInvalidConfig", name, err)
		}
	}
}

func TestStartEmbeddedOnTakenExplicitPortFails(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	_, err = StartEmbedded(Config{DataDir: t.TempDir(), ClientURL: "http://" + l.Addr().String()})
	if err == nil {
		t.Fatal("StartEmbedded on a taken client port succeeded")
	}
	if !IsAddrInUse(err) {
		t.Errorf("err = %v, want an address-in-use error", err)
	}
}

func TestExplicitURLsAreAdvertised(t *testing.T) {
	ports, err := freePorts(2)
	if err != nil {
		t.Fatal(err)
	}
	client := fmt.Sprintf("http://127.0.0.1:%d", ports[0])
	e := startT(t, Config{DataDir: t.TempDir(), ClientURL: client, PeerURL: fmt.Sprintf("http://127.0.0.1:%d", ports[1])})
	if got := e.Endpoints(); len(got) != 1 || got[0] != client {
		t.Fatalf("Endpoints() = %v, want [%s]", got, client)
	}
	c := clientT(t, e)
	members, err := c.MemberList(ctxT(t))
	if err != nil {
		t.Fatal(err)
	}
	if len(members.Members) != 1 || len(members.Members[0].ClientURLs) != 1 || members.Members[0].ClientURLs[0] != client {
		t.Fatalf("member list = %v, want one member advertising %s", members.Members, client)
	}
}

func TestCloseIsIdempotentAndStopsServing(t *testing.T) {
	e, err := StartEmbedded(Config{DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	eps := e.Endpoints()
	e.Close()
	e.Close()
	if _, err := dial(eps, 300*time.Millisecond); !errors.Is(err, ErrUnreachable) {
		t.Fatalf("dial after Close: err = %v, want ErrUnreachable", err)
	}
}

func TestInProcessClientSharesTheMemberWithGRPCClients(t *testing.T) {
	e := startT(t, Config{DataDir: t.TempDir()})
	ctx := ctxT(t)
	local := inProcessClientT(t, e)
	remote := clientT(t, e)

	w := remote.Watch(ctx, "/ip/", clientv3.WithPrefix())
	put, err := local.Put(ctx, "/ip/a", "1")
	if err != nil {
		t.Fatal(err)
	}
	got, err := remote.Get(ctx, "/ip/a")
	if err != nil || len(got.Kvs) != 1 || string(got.Kvs[0].Value) != "1" || got.Kvs[0].ModRevision != put.Header.Revision {
		t.Fatalf("gRPC client reads %v, %v; want /ip/a=1 at revision %d", got, err, put.Header.Revision)
	}
	if ev := <-w; len(ev.Events) != 1 || string(ev.Events[0].Kv.Key) != "/ip/a" {
		t.Fatalf("gRPC watch saw %+v, want the in-process put", ev)
	}
	txn, err := local.Txn(ctx).If(clientv3.Compare(clientv3.ModRevision("/ip/a"), "=", put.Header.Revision-1)).
		Then(clientv3.OpPut("/ip/a", "2")).Commit()
	if err != nil || txn.Succeeded {
		t.Fatalf("stale CAS through the in-process client: succeeded=%v err=%v; want a failed compare", txn != nil && txn.Succeeded, err)
	}
}

func TestInProcessWatchDeliversCompactsAndCancels(t *testing.T) {
	e := startT(t, Config{DataDir: t.TempDir()})
	ctx := ctxT(t)
	local := inProcessClientT(t, e)
	remote := clientT(t, e)

	wctx, cancel := context.WithCancel(ctx)
	w := local.Watch(wctx, "/w/", clientv3.WithPrefix())
	var last int64
	for i := 0; i < 50; i++ { // more than one response's worth, unread until the end
		resp, err := remote.Put(ctx, fmt.Sprintf("/w/%d", i), "v")
		if err != nil {
			t.Fatal(err)
		}
		last = resp.Header.Revision
	}
	seen := 0
	for seen < 50 {
		ev, ok := <-w
		if !ok || ev.Err() != nil {
			t.Fatalf("watch ended after %d events: %v", seen, ev.Err())
		}
		seen += len(ev.Events)
	}
	cancel()
	for range w { // a cancelled watch's channel closes
	}

	if _, err := local.Compact(ctx, last); err != nil {
		t.Fatal(err)
	}
	old := local.Watch(ctx, "/w/", clientv3.WithPrefix(), clientv3.WithRev(last-10))
	ev := <-old
	if !errors.Is(ev.Err(), rpctypes.ErrCompacted) || ev.CompactRevision != last {
		t.Fatalf("watch from a compacted revision: err=%v compact=%d; want ErrCompacted at %d", ev.Err(), ev.CompactRevision, last)
	}
}

// Each kubectl get -w opens and later cancels a watch; the streams behind
// cancelled watches must end, not pile up for the life of converge up.
func TestCancelledInProcessWatchesLeaveNoGoroutines(t *testing.T) {
	e := startT(t, Config{DataDir: t.TempDir()})
	ctx := ctxT(t)
	c := inProcessClientT(t, e)
	if _, err := c.Put(ctx, "/leak", "0"); err != nil {
		t.Fatal(err)
	}
	base := runtime.NumGoroutine()
	for i := 0; i < 100; i++ {
		wctx, cancel := context.WithCancel(clientv3.WithRequireLeader(ctx))
		w := c.Watch(wctx, "/leak")
		if _, err := c.Put(ctx, "/leak", fmt.Sprint(i)); err != nil {
			t.Fatal(err)
		}
		<-w
		cancel()
	}
	deadline := time.Now().Add(5 * time.Second)
	// A leak would hold one goroutine or more per watch (100); the slack
	// is for the member's own timers, which come and go (more so under
	// the race detector).
	for runtime.NumGoroutine() > base+10 {
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutines after 100 cancelled watches, %d before", runtime.NumGoroutine(), base)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
