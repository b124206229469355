package store_test

import (
	"errors"
	"strconv"
	"testing"

	"github.com/converge-dev/converge/impl/store"
	"github.com/converge-dev/converge/impl/store/storetest"
)

// AllCustom is one scope over every custom resource: a list, a watch and a
// fingerprint see the objects of every CRD, in revision order, and no
// built-in's.
func TestAllCustomSpansEveryCustomResourceAndNoBuiltIn(t *testing.T) {
	t.Parallel()
	s := storetest.Store(t)
	ctx := ctxT(t)
	widget := store.Key{Resource: "widgets.example.com", Namespace: "ns", Name: "w"}
	gadget := store.Key{Resource: "gadgets.example.com", Name: "g"} // cluster-scoped
	start := mustCreate(t, s, pod("ns", "p"), "p1")
	ch := s.Watch(ctx, store.AllCustom, "", start)
	r1 := mustCreate(t, s, gadget, "g1")
	mustCreate(t, s, pod("ns", "q"), "q1")
	r2 := mustCreate(t, s, widget, "w1")
	del, err := s.Delete(ctx, gadget, 0)
	if err != nil {
		t.Fatal(err)
	}
	expectEvents(t, ctx, ch,
		"ADDED gadgets.example.com/g=g1@"+strconv.FormatInt(r1, 10),
		"ADDED widgets.example.com/ns/w=w1@"+strconv.FormatInt(r2, 10),
		"DELETED gadgets.example.com/g=g1@"+strconv.FormatInt(del.Rev, 10))

	objs, _, _, err := s.List(ctx, store.AllCustom, "", store.ListOptions{})
	if err != nil || len(objs) != 1 || objs[0].Key != widget {
		t.Fatalf("List(AllCustom) = %v, %v; want only %s", objs, err, widget)
	}
	fp, _, err := s.Fingerprints(ctx, store.Scope{Resource: store.AllCustom})
	if err != nil || fp[0].Count != 1 {
		t.Fatalf("Fingerprints(AllCustom) = %v, %v; want a count of 1", fp, err)
	}
	// A custom resource's own scope holds its objects only.
	objs, _, _, err = s.List(ctx, "widgets.example.com", "ns", store.ListOptions{})
	if err != nil || len(objs) != 1 {
		t.Fatalf("List(widgets) = %v, %v", objs, err)
	}

	if _, err := s.Create(ctx, store.Key{Resource: store.AllCustom, Name: "x"}, []byte("x")); !errors.Is(err, store.ErrInvalid) {
		t.Fatalf("Create under AllCustom: err = %v, want ErrInvalid", err)
	}
	if _, _, _, err := s.List(ctx, store.AllCustom, "ns", store.ListOptions{}); !errors.Is(err, store.ErrInvalid) {
		t.Fatalf("List(AllCustom) in a namespace: err = %v, want ErrInvalid", err)
	}
}

// A Union is one scope over several resources, custom ones among them: a
// list and a watch see their objects, in revision order, and no other
// resource's, though the others' keys lie between theirs.
func TestUnionSpansItsResourcesAndNoOther(t *testing.T) {
	t.Parallel()
	s := storetest.Store(t)
	ctx := ctxT(t)
	union := store.Union("secrets", store.AllCustom, "configmaps")
	if union != store.Union(store.AllCustom, "configmaps", "secrets") || store.Union(store.AllCustom) != store.AllCustom {
		t.Fatalf("Union depends on its arguments' order, or Union(AllCustom) = %q", store.Union(store.AllCustom))
	}
	cm := store.Key{Resource: "configmaps", Namespace: "ns", Name: "c"}
	widget := store.Key{Resource: "widgets.example.com", Namespace: "ns", Name: "c"} // the same name
	secret := store.Key{Resource: "secrets", Namespace: "ns", Name: "s"}
	start := mustCreate(t, s, cm, "c1")
	ch := s.Watch(ctx, union, "", start)
	mustCreate(t, s, pod("ns", "p"), "p1") // between custom and secrets, and not in the union
	r1 := mustCreate(t, s, widget, "w1")
	mustCreate(t, s, store.Key{Resource: "services", Namespace: "ns", Name: "x"}, "x1")
	r2 := mustCreate(t, s, secret, "s1")
	del, err := s.Delete(ctx, cm, 0)
	if err != nil {
		t.Fatal(err)
	}
	expectEvents(t, ctx, ch,
		"ADDED widgets.example.com/ns/c=w1@"+strconv.FormatInt(r1, 10),
		"ADDED secrets/ns/s=s1@"+strconv.FormatInt(r2, 10),
		"DELETED configmaps/ns/c=c1@"+strconv.FormatInt(del.Rev, 10))

	objs, _, _, err := s.List(ctx, union, "", store.ListOptions{AtRev: r2})
	var keys []store.Key
	for _, o := range objs {
		keys = append(keys, o.Key)
	}
	if err != nil || len(keys) != 3 || keys[0] != cm || keys[1] != widget || keys[2] != secret {
		t.Fatalf("List(union) at %d = %v, %v; want %v, %v, %v", r2, keys, err, cm, widget, secret)
	}
	for what, err := range map[string]error{
		"a page of it":    func() error { _, err := s.ListPage(ctx, union, "", store.ListOptions{Limit: 1}); return err }(),
		"in a namespace":  func() error { _, _, _, err := s.List(ctx, union, "ns", store.ListOptions{}); return err }(),
		"its fingerprint": func() error { _, _, err := s.Fingerprints(ctx, store.Scope{Resource: union}); return err }(),
		"a key in it":     func() error { _, err := s.Create(ctx, store.Key{Resource: union, Name: "x"}, []byte("x")); return err }(),
		"a custom member": func() error {
			_, _, _, err := s.List(ctx, store.Union("configmaps", "widgets.example.com"), "", store.ListOptions{})
			return err
		}(),
	} {
		if !errors.Is(err, store.ErrInvalid) {
			t.Errorf("%s: err = %v, want ErrInvalid", what, err)
		}
	}
}
