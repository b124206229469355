package store_test

import (
	"context"
	"testing"

	"github.com/converge-dev/converge/impl/store"
	"github.com/converge-dev/converge/impl/store/storetest"
)

// Compaction is etcd-wide, so these tests run on an etcd of their own.
func TestCompactionMakesOldRevisionsGone(t *testing.T) {
	t.Parallel()
	s := storetest.Isolated(t)
	ctx := ctxT(t)
	a := pod("ns", "a")
	r1 := mustCreate(t, s, a, "v1")
	mustCreate(t, s, pod("ns", "b"), "b")
	r2, _ := s.Update(ctx, a, []byte("v2"), r1)
	_, _, cont, err := s.List(ctx, "pods", "", store.ListOptions{Limit: 1, AtRev: r2})
	if err != nil || cont == "" {
		t.Fatalf("paged list before compaction: cont %q, err %v", cont, err)
	}
	r3, err := s.Update(ctx, a, []byte("v3"), 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Compact(ctx, r3); err != nil {
		t.Fatalf("Compact(%d): %v", r3, err)
	}

	_, _, _, err = s.List(ctx, "pods", "", store.ListOptions{AtRev: r1})
	wantErr(t, "List at compacted rev", err, store.ErrGone)
	_, _, _, err = s.List(ctx, "pods", "", store.ListOptions{Continue: cont})
	wantErr(t, "continue at compacted rev", err, store.ErrGone)
	if objs, _, _, err := s.List(ctx, "pods", "", store.ListOptions{AtRev: r3}); err != nil || len(objs) != 2 {
		t.Fatalf("List at the compaction rev = %v, %v; want 2 objects", objs, err)
	}

	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ch := s.Watch(wctx, "pods", "", r1) // needs r1+1 < r3: compacted
	ev := next(t, ctx, ch)
	wantErr(t, "Watch from compacted rev", ev.Err, store.ErrGone)
	if _, ok := <-ch; ok {
		t.Fatal("watch channel open after ErrGone")
	}
	// The compaction revision itself is kept, so resuming just before it works.
	if ev := next(t, ctx, s.Watch(wctx, "pods", "", r3-1)); ev.Err != nil || ev.Object.Rev != r3 {
		t.Fatalf("Watch from %d: %s, want the write at %d", r3-1, brief(ev), r3)
	}

	if err := s.Compact(ctx, r2); err != nil {
		t.Fatalf("Compact to an older rev should be a no-op, got %v", err)
	}
	if err := s.Compact(context.Background(), r3+1000); err == nil {
		t.Fatal("Compact to a future revision succeeded")
	}
}

// A compaction is Gone for the Store that made it even while the etcd
// member serving a read or watch still holds the history, as a member
// that applies the compaction late does.
func TestOwnCompactionIsGoneOnALaggingMember(t *testing.T) {
	t.Parallel()
	s := storetest.Isolated(t)
	ctx := ctxT(t)
	a := pod("ns", "a")
	r1 := mustCreate(t, s, a, "v1")
	r2, _ := s.Update(ctx, a, []byte("v2"), r1)
	r3, _ := s.Update(ctx, a, []byte("v3"), r2)
	store.CompactedLocally(s, r3)
	_, _, _, err := s.List(ctx, "pods", "", store.ListOptions{AtRev: r2})
	wantErr(t, "List below the Store's compaction", err, store.ErrGone)
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	wantErr(t, "Watch below the Store's compaction", next(t, ctx, s.Watch(wctx, "pods", "", r1)).Err, store.ErrGone)
	if ev := next(t, ctx, s.Watch(wctx, "pods", "", r2)); ev.Err != nil || ev.Object.Rev != r3 {
		t.Fatalf("Watch from %d: %s, want the write at %d", r2, brief(ev), r3)
	}
}
