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
