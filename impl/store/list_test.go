package store_test

import (
	"fmt"
	"reflect"
	"sort"
	"testing"

	"github.com/converge-dev/converge/impl/store"
	"github.com/converge-dev/converge/impl/store/storetest"
)

// summary renders objects as "key=value" for readable comparisons.
func summary(objs []store.Object) []string {
	out := []string{}
	for _, o := range objs {
		out = append(out, o.Key.String()+"="+string(o.Value))
	}
	return out
}

func TestListAtPastRevisionSeesThatSnapshot(t *testing.T) {
	t.Parallel()
	s := storetest.Store(t)
	ctx := ctxT(t)
	mustCreate(t, s, pod("ns", "a"), "a1")
	past := mustCreate(t, s, pod("ns", "b"), "b1")
	if _, err := s.Update(ctx, pod("ns", "a"), []byte("a2"), 0); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Delete(ctx, pod("ns", "b"), 0); err != nil {
		t.Fatal(err)
	}
	mustCreate(t, s, pod("ns", "c"), "c1")

	objs, rev, cont, err := s.List(ctx, "pods", "ns", store.ListOptions{AtRev: past})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"pods/ns/a=a1", "pods/ns/b=b1"}; !reflect.DeepEqual(summary(objs), want) || rev != past || cont != "" {
		t.Fatalf("List at %d = %v rev %d cont %q; want %v rev %d", past, summary(objs), rev, cont, want, past)
	}
	objs, rev, _, err = s.List(ctx, "pods", "ns", store.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"pods/ns/a=a2", "pods/ns/c=c1"}; !reflect.DeepEqual(summary(objs), want) || rev <= past {
		t.Fatalf("List latest = %v rev %d; want %v at rev > %d", summary(objs), rev, want, past)
	}
	for _, o := range objs {
		if o.Rev > rev || o.CreateRev > o.Rev {
			t.Errorf("object %+v has revisions inconsistent with listRev %d", o, rev)
		}
	}
}

func TestListScopesByNamespaceAndResource(t *testing.T) {
	t.Parallel()
	s := storetest.Store(t)
	ctx := ctxT(t)
	mustCreate(t, s, pod("a", "x"), "1")
	mustCreate(t, s, pod("ab", "x"), "2") // "a" must not match "ab" as a prefix
	mustCreate(t, s, pod("b", "y"), "3")
	mustCreate(t, s, store.Key{Resource: "podsx", Namespace: "a", Name: "z"}, "4")
	mustCreate(t, s, store.Key{Resource: "nodes", Name: "n1"}, "5")

	cases := []struct {
		resource, ns string
		want         []string
	}{
		{"pods", "a", []string{"pods/a/x=1"}},
		{"pods", "", []string{"pods/a/x=1", "pods/ab/x=2", "pods/b/y=3"}},
		{"nodes", "", []string{"nodes/n1=5"}},
		{"services", "", []string{}},
	}
	for _, c := range cases {
		objs, _, _, err := s.List(ctx, c.resource, c.ns, store.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got := summary(objs); !reflect.DeepEqual(got, c.want) {
			t.Errorf("List(%s, %q) = %v, want %v", c.resource, c.ns, got, c.want)
		}
	}
}

func TestListPaginationIsOneSnapshot(t *testing.T) {
	t.Parallel()
	s := storetest.Store(t)
	ctx := ctxT(t)
	var want []string
	for i := 0; i < 7; i++ {
		ns := []string{"a", "b"}[i%2]
		k := pod(ns, fmt.Sprintf("p%d", i))
		mustCreate(t, s, k, "v")
		want = append(want, k.String()+"=v")
	}
	sort.Strings(want) // List orders by key
	var got []string
	var firstRev int64
	var pages int
	opts := store.ListOptions{Limit: 3}
	for {
		objs, rev, cont, err := s.List(ctx, "pods", "", opts)
		if err != nil {
			t.Fatalf("page %d: %v", pages, err)
		}
		if pages == 0 {
			firstRev = rev
		}
		if rev != firstRev {
			t.Fatalf("page %d at rev %d, want the first page's rev %d", pages, rev, firstRev)
		}
		if len(objs) > 3 {
			t.Fatalf("page %d has %d objects, limit 3", pages, len(objs))
		}
		got = append(got, summary(objs)...)
		pages++
		// Writes between pages must not leak into the snapshot.
		mustCreate(t, s, pod("a", fmt.Sprintf("late%d", pages)), "late")
		if _, err := s.Update(ctx, pod("a", "p0"), []byte("changed"), 0); err != nil {
			t.Fatal(err)
		}
		if cont == "" {
			break
		}
		opts.Continue = cont
	}
	full, _, _, err := s.List(ctx, "pods", "", store.ListOptions{AtRev: firstRev})
	if err != nil {
		t.Fatal(err)
	}
	if pages != 3 {
		t.Errorf("7 objects at limit 3 took %d pages, want 3", pages)
	}
	if !reflect.DeepEqual(got, summary(full)) {
		t.Fatalf("paged list = %v, want the snapshot %v", got, summary(full))
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("paged list = %v, want the objects created before it %v", got, want)
	}
}

func TestListRejectsBadContinueToken(t *testing.T) {
	t.Parallel()
	s := storetest.Store(t)
	ctx := ctxT(t)
	for i := 0; i < 3; i++ {
		mustCreate(t, s, pod("a", fmt.Sprint(i)), "v")
	}
	_, rev, cont, err := s.List(ctx, "pods", "a", store.ListOptions{Limit: 1})
	if err != nil || cont == "" {
		t.Fatalf("first page: cont %q err %v", cont, err)
	}
	_, _, _, err = s.List(ctx, "pods", "a", store.ListOptions{Continue: "not a token!"})
	wantErr(t, "garbage token", err, store.ErrInvalid)
	_, _, _, err = s.List(ctx, "pods", "a", store.ListOptions{Continue: cont, AtRev: rev + 1})
	wantErr(t, "token with a different AtRev", err, store.ErrInvalid)
	_, _, _, err = s.List(ctx, "pods", "a", store.ListOptions{Limit: -1})
	wantErr(t, "negative limit", err, store.ErrInvalid)
}
