package model

import (
	"reflect"
	"strings"
	"testing"
)

// A custom resource's body shows one field per leaf, in path order, with
// strings quoted, timestamps masked and numbers as written; a body that is not an object is
// one field.
func TestCustomBodyFields(t *testing.T) {
	got := bodyFields(`{"spec":{"image":"nginx","replicas":3,"big":12345678901234567890,"ports":[{"name":"http"},{}],"tags":[],"on":false,"at":"2026-11-27T10:00:00Z","none":null,"empty":{}},"status":{}}`)
	want := []Field{
		{"spec.at", `"<time>"`},
		{"spec.big", "12345678901234567890"},
		{"spec.empty", "{}"},
		{"spec.image", `"nginx"`},
		{"spec.none", "null"},
		{"spec.on", "false"},
		{"spec.ports[0].name", `"http"`},
		{"spec.ports[1]", "{}"},
		{"spec.replicas", "3"},
		{"spec.tags", "[]"},
		{"status", "{}"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("bodyFields:\n got %v\nwant %v", got, want)
	}
	if got := bodyFields(`not json`); !reflect.DeepEqual(got, []Field{{"body", "not json"}}) {
		t.Fatalf("a body that is not JSON: %v", got)
	}
}

// Custom resources are objects like any other in a snapshot: named by
// their type, told apart from another type's of the same name, an owner
// whose dependents are orphans once it is gone, and content that keeps a
// namespace from going.
func TestCustomResourcesInSnapshots(t *testing.T) {
	widget := &Custom{Meta: Meta{Name: "hello", Namespace: "team", UID: 7}, Type: "widgets.example.com", Body: `{"spec":{"size":"large"}}`}
	dep := &Custom{Meta: Meta{Name: "hello", Namespace: "team", UID: 8, Owner: Owner{Kind: KindCustom, Type: "widgets.example.com", Name: "hello", UID: 7}},
		Type: "gadgets.example.com", Body: `{}`}
	ns := &Namespace{Meta: Meta{Name: "team", UID: 1}}
	s := &Snapshot{Objects: map[Ref]Obj{}}
	for _, o := range []Obj{widget, dep, ns} {
		s.Objects[RefOf(o)] = o
	}
	if len(s.Objects) != 3 {
		t.Fatalf("two custom resources of one name but different types collide: %v", s.Objects)
	}
	if r := RefOf(widget); r.String() != "widgets.example.com/team/hello" || OwnerRef(&dep.Meta) != r {
		t.Fatalf("the Widget's ref %v, the Gadget's owner ref %v", r, OwnerRef(&dep.Meta))
	}
	lines := strings.Join(s.Lines(), "\n")
	for _, l := range []string{
		"namespaces/team\ngadgets.example.com/team/hello\n", // after the built-in kinds, by type
		`widgets.example.com/team/hello spec.size="large"`,
		"gadgets.example.com/team/hello metadata.ownerReferences=widgets.example.com/hello\n",
	} {
		if !strings.Contains(lines, l) {
			t.Fatalf("the lines lack %q:\n%s", l, lines)
		}
	}
	if err := Converged(s); err != nil {
		t.Fatalf("converged with the Widget present: %v", err)
	}

	delete(s.Objects, RefOf(widget))
	if err := Converged(s); err == nil || !strings.Contains(err.Error(), "gadgets.example.com/team/hello is an orphan") {
		t.Fatalf("a custom resource whose custom owner went: %v", err)
	}
	s.Objects[RefOf(widget)] = widget
	delete(s.Objects, RefOf(dep))
	delete(s.Objects, RefOf(ns))
	if err := Converged(s); err == nil || !strings.Contains(err.Error(), "is left in namespace team, which is gone") {
		t.Fatalf("custom resources left in a namespace that went: %v", err)
	}
	w := *widget
	w.Namespace, w.Deleting = "default", true
	if err := Converged(&Snapshot{Objects: map[Ref]Obj{RefOf(&w): &w}}); err == nil || !strings.Contains(err.Error(), "widgets.example.com/default/hello is still terminating") {
		t.Fatalf("a custom resource that never finishes going: %v", err)
	}
}

// No component's view holds custom resources, and the garbage collector
// leaves their dependents to the driver's own pass: a dependent of a
// custom owner is never keyed, whatever the view shows.
func TestGarbageCollectorLeavesCustomOwners(t *testing.T) {
	m := NewMemory(GarbageCollector)
	owned := &Pod{Meta: Meta{Name: "p", Namespace: "default", UID: 3, Owner: Owner{Kind: KindCustom, Type: "widgets.example.com", Name: "hello", UID: 7}}}
	if m.GetRef(OwnerRef(&owned.Meta)) != nil || m.List(KindCustom) != nil {
		t.Fatal("a view shows a custom resource")
	}
	if keys := gcRole.keys(m, WatchEvent{Type: Added, Obj: owned}); len(keys) != 0 {
		t.Fatalf("the garbage collector keys a custom resource's dependent: %v", keys)
	}
	plain := &Pod{Meta: Meta{Name: "q", Namespace: "default", UID: 4, Owner: Owner{Kind: KindReplicaSet, Name: "rs", UID: 5}}}
	if keys := gcRole.keys(m, WatchEvent{Type: Added, Obj: plain}); len(keys) != 1 {
		t.Fatalf("an orphan of a built-in owner is keyed: %v", keys)
	}
}
