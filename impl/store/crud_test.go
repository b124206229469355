package store_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/converge-dev/converge/impl/store"
	"github.com/converge-dev/converge/impl/store/storetest"
)

func TestMain(m *testing.M) { storetest.Main(m) }

func ctxT(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func pod(ns, name string) store.Key { return store.Key{Resource: "pods", Namespace: ns, Name: name} }

func mustCreate(t testing.TB, s *store.Store, k store.Key, v string) int64 {
	t.Helper()
	rev, err := s.Create(ctxT(t), k, []byte(v))
	if err != nil {
		t.Fatalf("Create(%s): %v", k, err)
	}
	return rev
}

func mustGet(t testing.TB, s *store.Store, k store.Key) store.Object {
	t.Helper()
	o, err := s.Get(ctxT(t), k)
	if err != nil {
		t.Fatalf("Get(%s): %v", k, err)
	}
	return o
}

func wantErr(t testing.TB, what string, err, want error) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Fatalf("%s: err = %v, want %v", what, err, want)
	}
}

func TestCreateThenGetReturnsValueAndRevisions(t *testing.T) {
	t.Parallel()
	s := storetest.Store(t)
	k := pod("default", "a")
	rev := mustCreate(t, s, k, "v1")
	got := mustGet(t, s, k)
	if got.Key != k || string(got.Value) != "v1" || got.Rev != rev || got.CreateRev != rev {
		t.Fatalf("Get = %+v, want key %s value v1 rev=createRev=%d", got, k, rev)
	}
}

func TestCreateExistingFailsAndKeepsValue(t *testing.T) {
	t.Parallel()
	s := storetest.Store(t)
	k := pod("default", "a")
	rev := mustCreate(t, s, k, "v1")
	_, err := s.Create(ctxT(t), k, []byte("v2"))
	wantErr(t, "second Create", err, store.ErrAlreadyExists)
	if got := mustGet(t, s, k); string(got.Value) != "v1" || got.Rev != rev {
		t.Fatalf("after failed Create: %+v, want v1 at rev %d", got, rev)
	}
}

func TestGetMissingIsNotFound(t *testing.T) {
	t.Parallel()
	_, err := storetest.Store(t).Get(ctxT(t), pod("default", "nope"))
	wantErr(t, "Get", err, store.ErrNotFound)
}

func TestUpdateWithStaleRevisionConflictsAndChangesNothing(t *testing.T) {
	t.Parallel()
	s := storetest.Store(t)
	ctx := ctxT(t)
	k := pod("default", "a")
	rev1 := mustCreate(t, s, k, "v1")
	rev2, err := s.Update(ctx, k, []byte("v2"), rev1)
	if err != nil {
		t.Fatalf("Update at current rev: %v", err)
	}
	if rev2 <= rev1 {
		t.Fatalf("Update returned rev %d, want > %d", rev2, rev1)
	}
	_, err = s.Update(ctx, k, []byte("v3"), rev1)
	wantErr(t, "Update at stale rev", err, store.ErrConflict)
	got := mustGet(t, s, k)
	if string(got.Value) != "v2" || got.Rev != rev2 || got.CreateRev != rev1 {
		t.Fatalf("after conflict: %+v, want v2 rev %d createRev %d", got, rev2, rev1)
	}
}

// A guarded update writes only while both the key and its guard are at
// the revisions given; a move of either is a conflict that writes nothing.
func TestUpdateGuardedNeedsBothRevisions(t *testing.T) {
	t.Parallel()
	s := storetest.Store(t)
	ctx := ctxT(t)
	k, node := pod("default", "a"), store.Key{Resource: "nodes", Name: "n1"}
	podRev := mustCreate(t, s, k, "v1")
	nodeRev := mustCreate(t, s, node, "ready")

	nodeRev2, err := s.Update(ctx, node, []byte("not ready"), nodeRev)
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.UpdateGuarded(ctx, k, []byte("v2"), podRev, node, nodeRev)
	wantErr(t, "guard moved", err, store.ErrConflict)
	if got := mustGet(t, s, k); string(got.Value) != "v1" || got.Rev != podRev {
		t.Fatalf("after a failed guard: %+v, want v1 at %d", got, podRev)
	}

	rev, err := s.UpdateGuarded(ctx, k, []byte("v2"), podRev, node, nodeRev2)
	if err != nil {
		t.Fatalf("both at their revisions: %v", err)
	}
	_, err = s.UpdateGuarded(ctx, k, []byte("v3"), podRev, node, nodeRev2)
	wantErr(t, "key moved", err, store.ErrConflict)
	if got := mustGet(t, s, k); string(got.Value) != "v2" || got.Rev != rev {
		t.Fatalf("after a stale key: %+v, want v2 at %d", got, rev)
	}
	_, err = s.UpdateGuarded(ctx, k, []byte("v3"), rev, node, 0)
	wantErr(t, "no guard revision", err, store.ErrInvalid)
}

func TestUpdateMissingIsNotFoundAndDoesNotCreate(t *testing.T) {
	t.Parallel()
	s := storetest.Store(t)
	ctx := ctxT(t)
	k := pod("default", "ghost")
	for _, expect := range []int64{0, 5} {
		_, err := s.Update(ctx, k, []byte("v"), expect)
		wantErr(t, "Update of missing object", err, store.ErrNotFound)
	}
	_, err := s.Get(ctx, k)
	wantErr(t, "Get after failed Update", err, store.ErrNotFound)
}

func TestUnconditionalUpdateOverwrites(t *testing.T) {
	t.Parallel()
	s := storetest.Store(t)
	k := pod("default", "a")
	rev1 := mustCreate(t, s, k, "v1")
	if _, err := s.Update(ctxT(t), k, []byte("v2"), rev1); err != nil {
		t.Fatal(err)
	}
	rev3, err := s.Update(ctxT(t), k, []byte("v3"), 0)
	if err != nil {
		t.Fatalf("unconditional Update: %v", err)
	}
	if got := mustGet(t, s, k); string(got.Value) != "v3" || got.Rev != rev3 {
		t.Fatalf("after unconditional Update: %+v, want v3 at %d", got, rev3)
	}
}

func TestDeleteCompareAndSwap(t *testing.T) {
	t.Parallel()
	s := storetest.Store(t)
	ctx := ctxT(t)
	k := pod("default", "a")
	rev1 := mustCreate(t, s, k, "v1")
	rev2, err := s.Update(ctx, k, []byte("v2"), 0)
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Delete(ctx, k, rev1)
	wantErr(t, "Delete at stale rev", err, store.ErrConflict)
	if got := mustGet(t, s, k); string(got.Value) != "v2" {
		t.Fatalf("conflicting Delete changed the object: %+v", got)
	}
	deleted, err := s.Delete(ctx, k, rev2)
	if err != nil {
		t.Fatalf("Delete at current rev: %v", err)
	}
	if deleted.Key != k || string(deleted.Value) != "v2" || deleted.Rev <= rev2 || deleted.CreateRev != rev1 {
		t.Fatalf("Delete returned %+v, want last value v2, rev > %d, createRev %d", deleted, rev2, rev1)
	}
	_, err = s.Get(ctx, k)
	wantErr(t, "Get after Delete", err, store.ErrNotFound)
	_, err = s.Delete(ctx, k, rev2)
	wantErr(t, "Delete again with rev", err, store.ErrNotFound)
	_, err = s.Delete(ctx, k, 0)
	wantErr(t, "Delete again unconditionally", err, store.ErrNotFound)
}

func TestUnconditionalDelete(t *testing.T) {
	t.Parallel()
	s := storetest.Store(t)
	k := store.Key{Resource: "nodes", Name: "n1"}
	mustCreate(t, s, k, "node")
	deleted, err := s.Delete(ctxT(t), k, 0)
	if err != nil || string(deleted.Value) != "node" {
		t.Fatalf("Delete = %+v, %v; want last value node", deleted, err)
	}
}

func TestInvalidInputIsRejectedWithoutWriting(t *testing.T) {
	t.Parallel()
	s := storetest.Store(t)
	ctx := ctxT(t)
	bad := []store.Key{
		{Resource: "", Name: "a"},
		{Resource: "pods", Namespace: "default", Name: ""},
		{Resource: "pods", Namespace: "a/b", Name: "c"},
		{Resource: "pods", Namespace: "default", Name: "x/y"},
		{Resource: "po/ds", Name: "a"},
	}
	for _, k := range bad {
		_, err := s.Create(ctx, k, []byte("v"))
		wantErr(t, "Create("+k.String()+")", err, store.ErrInvalid)
		_, err = s.Get(ctx, k)
		wantErr(t, "Get("+k.String()+")", err, store.ErrInvalid)
	}
	_, err := s.Update(ctx, pod("default", "a"), nil, -1)
	wantErr(t, "Update with negative rev", err, store.ErrInvalid)
	_, err = s.CreateGenerated(ctx, "pods", "default", "a/", func(string) ([]byte, error) { return nil, nil })
	wantErr(t, "CreateGenerated with '/' in prefix", err, store.ErrInvalid)
	err = s.Compact(ctx, 0)
	wantErr(t, "Compact(0)", err, store.ErrInvalid)
	objs, _, _, err := s.List(ctx, "pods", "", store.ListOptions{})
	if err != nil || len(objs) != 0 {
		t.Fatalf("after rejected writes List = %v, %v; want empty", objs, err)
	}
}

func TestKeyString(t *testing.T) {
	if got := pod("ns", "a").String(); got != "pods/ns/a" {
		t.Errorf("namespaced Key.String() = %q", got)
	}
	if got := (store.Key{Resource: "nodes", Name: "n1"}).String(); got != "nodes/n1" {
		t.Errorf("cluster-scoped Key.String() = %q", got)
	}
}
