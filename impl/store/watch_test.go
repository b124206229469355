package store_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/converge-dev/converge/impl/store"
	"github.com/converge-dev/converge/impl/store/storetest"
)

// next reads one event; the test's context only guards against a hang.
func next(t *testing.T, ctx context.Context, ch <-chan store.StoreEvent) store.StoreEvent {
	t.Helper()
	select {
	case ev, ok := <-ch:
		if !ok {
			t.Fatal("watch channel closed, want an event")
		}
		return ev
	case <-ctx.Done():
		t.Fatal("no watch event before the test deadline")
	}
	return store.StoreEvent{}
}

// brief renders an event for comparison: TYPE key=value@rev.
func brief(ev store.StoreEvent) string {
	if ev.Err != nil {
		return "ERR " + ev.Err.Error()
	}
	return fmt.Sprintf("%s %s=%s@%d", ev.Type, ev.Object.Key, ev.Object.Value, ev.Object.Rev)
}

func expectEvents(t *testing.T, ctx context.Context, ch <-chan store.StoreEvent, want ...string) {
	t.Helper()
	for i, w := range want {
		if got := brief(next(t, ctx, ch)); got != w {
			t.Fatalf("event %d = %q, want %q", i, got, w)
		}
	}
}

func TestWatchFromRevisionDeliversLaterEventsOnceInOrder(t *testing.T) {
	t.Parallel()
	s := storetest.Store(t)
	ctx := ctxT(t)
	a, b := pod("ns", "a"), pod("ns", "b")
	r1 := mustCreate(t, s, a, "a1")
	r2, _ := s.Update(ctx, a, []byte("a2"), r1)
	r3 := mustCreate(t, s, b, "b1")
	del, err := s.Delete(ctx, a, 0)
	if err != nil {
		t.Fatal(err)
	}
	r5, err := s.Update(ctx, b, []byte("b2"), r3)
	if err != nil {
		t.Fatal(err)
	}

	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ch := s.Watch(wctx, "pods", "", r2)
	expectEvents(t, ctx, ch,
		fmt.Sprintf("ADDED pods/ns/b=b1@%d", r3),
		fmt.Sprintf("DELETED pods/ns/a=a2@%d", del.Rev),
		fmt.Sprintf("MODIFIED pods/ns/b=b2@%d", r5),
	)
	// A fresh write must be the very next event: nothing was repeated.
	r6 := mustCreate(t, s, pod("ns", "c"), "c1")
	expectEvents(t, ctx, ch, fmt.Sprintf("ADDED pods/ns/c=c1@%d", r6))

	// The DELETED event carries the deleted object's creation revision too.
	ch2 := s.Watch(wctx, "pods", "ns", del.Rev-1)
	if ev := next(t, ctx, ch2); ev.Type != store.Deleted || ev.Object.CreateRev != r1 {
		t.Fatalf("first event after %d = %+v, want DELETED with CreateRev %d", del.Rev-1, ev, r1)
	}
}

func TestWatchFromZeroReplaysRetainedHistory(t *testing.T) {
	t.Parallel()
	s := storetest.Store(t)
	ctx := ctxT(t)
	r1 := mustCreate(t, s, pod("ns", "a"), "a1")
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	expectEvents(t, ctx, s.Watch(wctx, "pods", "", 0), fmt.Sprintf("ADDED pods/ns/a=a1@%d", r1))
}

func TestWatchIsScopedToNamespaceAndResource(t *testing.T) {
	t.Parallel()
	s := storetest.Store(t)
	ctx := ctxT(t)
	start, err := s.Rev(ctx)
	if err != nil {
		t.Fatal(err)
	}
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ch := s.Watch(wctx, "pods", "a", start)
	mustCreate(t, s, pod("ab", "x"), "no")
	mustCreate(t, s, pod("b", "x"), "no")
	mustCreate(t, s, store.Key{Resource: "podsx", Namespace: "a", Name: "x"}, "no")
	r := mustCreate(t, s, pod("a", "x"), "yes")
	expectEvents(t, ctx, ch, fmt.Sprintf("ADDED pods/a/x=yes@%d", r))
}

func TestWatchWithSlowReaderLosesNothing(t *testing.T) {
	t.Parallel()
	s := storetest.Store(t)
	ctx := ctxT(t)
	k := pod("ns", "counter")
	start := mustCreate(t, s, k, "0")
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ch := s.Watch(wctx, "pods", "ns", start)
	const writes = 300 // well past the channel's buffer
	done := make(chan error, 1)
	go func() {
		for i := 1; i <= writes; i++ {
			if _, err := s.Update(ctx, k, []byte(fmt.Sprint(i)), 0); err != nil {
				done <- err
				return
			}
		}
		done <- nil
	}()
	last := start
	for i := 1; i <= writes; i++ {
		ev := next(t, ctx, ch)
		if ev.Err != nil || ev.Type != store.Modified || string(ev.Object.Value) != fmt.Sprint(i) || ev.Object.Rev <= last {
			t.Fatalf("event %d = %s, want MODIFIED value %d at rev > %d", i, brief(ev), i, last)
		}
		last = ev.Object.Rev
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

func TestWatchClosesWhenContextCancelled(t *testing.T) {
	t.Parallel()
	s := storetest.Store(t)
	ctx := ctxT(t)
	wctx, cancel := context.WithCancel(ctx)
	ch := s.Watch(wctx, "pods", "", 0)
	cancel()
	for {
		select {
		case ev, ok := <-ch:
			if !ok {
				return
			}
			if ev.Err != nil {
				t.Fatalf("cancel produced an error event: %v", ev.Err)
			}
		case <-ctx.Done():
			t.Fatal("watch channel still open after cancel")
		}
	}
}

func TestWatchInvalidScopeEndsWithError(t *testing.T) {
	t.Parallel()
	s := storetest.Store(t)
	ctx := ctxT(t)
	ch := s.Watch(ctx, "po/ds", "", 0)
	ev := next(t, ctx, ch)
	wantErr(t, "Watch of bad resource", ev.Err, store.ErrInvalid)
	if _, ok := <-ch; ok {
		t.Fatal("channel still open after the error event")
	}
}

// A reader that reads what a watch event told it of sees that write: etcd
// notifies watchers before the write's revision shows to reads, and on a
// one-member etcd the store's reads are serializable, which do not wait
// for it. Without the wait a CRD controller once read a CRD it had just
// heard of as not found, once in a few hundred tries; this test looks
// thousands of times.
func TestReadAfterWatchEventSeesTheWrite(t *testing.T) {
	s := storetest.Store(t)
	ctx := ctxT(t)
	for i := range 3000 {
		rev, err := s.Rev(ctx)
		if err != nil {
			t.Fatal(err)
		}
		wctx, cancel := context.WithCancel(ctx)
		ch := s.Watch(wctx, "pods", "ns", rev)
		k := pod("ns", fmt.Sprint("p", i))
		go func() { _, _ = s.Create(ctx, k, []byte("v")) }()
		ev := next(t, ctx, ch)
		got, err := s.Get(ctx, k)
		cancel()
		if err != nil || got.Rev < ev.Object.Rev {
			t.Fatalf("try %d: the event was at revision %d; a read after it: %v, revision %d", i, ev.Object.Rev, err, got.Rev)
		}
	}
}
