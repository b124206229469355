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

// The garbage collector follows custom owners as built-in ones, through
// its informer of every custom resource: a dependent (built-in or custom)
// of a custom resource that went is collected, and a custom owner's
// foreground and orphan deletions are carried out. The namespace
// controller deletes the custom resources a namespace holds.
func TestGarbageCollectorAndNamespaceControllerTreatCustomResourcesAsAnyObject(t *testing.T) {
	st := New(Config{})
	create := func(o Obj) Obj {
		t.Helper()
		if _, err := st.store.create(o); err != nil {
			t.Fatal(err)
		}
		st.undelivered = 0 // as a step's write does
		return o
	}
	widget := func(ns, name string) *Custom {
		return &Custom{Meta: Meta{Name: name, Namespace: ns}, Type: "widgets.example.com", Body: `{"spec":{}}`}
	}
	ownedBy := func(o Obj, owner *Custom) Obj {
		o.meta().Owner = Owner{Kind: KindCustom, Type: owner.Type, Name: owner.Name, UID: owner.UID}
		return o
	}
	quiesce := func() {
		t.Helper()
		if _, err := st.Quiesce(2000); err != nil {
			t.Fatal(err)
		}
	}
	remove := func(o Obj, p Propagation) {
		t.Helper()
		if _, _, _, err := st.store.delete(RefOf(o), -1, p, false); err != nil {
			t.Fatal(err)
		}
		st.undelivered = 0
	}
	gone := func(what string, o Obj) {
		t.Helper()
		if cur := st.Get(RefOf(o)); cur != nil {
			t.Fatalf("%s: %s is still there: %+v", what, RefOf(o), cur.meta())
		}
	}

	// Background: the owner went; its dependents follow.
	owner := create(widget("default", "bg")).(*Custom)
	gadget := create(ownedBy(&Custom{Meta: Meta{Name: "bg", Namespace: "default"}, Type: "gadgets.example.com", Body: `{}`}, owner))
	dep := create(ownedBy(&Deployment{Meta: Meta{Name: "bg", Namespace: "default"}, Replicas: 0, Image: "nginx", PodLabels: map[string]string{"app": "bg"}}, owner))
	quiesce()
	if st.Get(RefOf(gadget)) == nil || st.Get(RefOf(dep)) == nil {
		t.Fatal("the garbage collector took a dependent whose owner is there")
	}
	remove(owner, PropagateBackground)
	quiesce()
	gone("background", gadget)
	gone("background", dep)

	// Foreground: the dependents go first, then the owner.
	owner = create(widget("default", "fg")).(*Custom)
	gadget = create(ownedBy(widget("default", "fg-child"), owner))
	remove(owner, PropagateForeground)
	if cur := st.Get(RefOf(owner)); cur == nil || !cur.meta().HasFinalizer(FinalizerForeground) {
		t.Fatalf("a foreground deletion of a custom resource: %+v", cur)
	}
	quiesce()
	gone("foreground", gadget)
	gone("foreground", owner)

	// Orphan: the dependent stays, without its owner.
	owner = create(widget("default", "or")).(*Custom)
	gadget = create(ownedBy(widget("default", "or-child"), owner))
	remove(owner, PropagateOrphan)
	quiesce()
	gone("orphan", owner)
	if cur := st.Get(RefOf(gadget)); cur == nil || cur.meta().Owner.UID != 0 {
		t.Fatalf("orphan: the dependent went or still names its owner: %+v", cur)
	}

	// A namespace that goes takes its custom resources with it.
	ns := create(&Namespace{Meta: Meta{Name: "team"}})
	inside := create(widget("team", "w"))
	remove(ns, PropagateBackground)
	quiesce()
	gone("namespace", inside)
	gone("namespace", ns)
	if err := Converged(st.Snapshot()); err != nil {
		t.Fatal(err)
	}
}

// A Service that a custom resource controls is in no view of the
// collector's: when the owner's deletion is missed (the collector crashed
// and relisted after it), its relist still finds the Service live.
func TestGarbageCollectorFindsWhatAGoneCustomOwnerLeftAtItsRelist(t *testing.T) {
	st := New(Config{})
	w := &Custom{Meta: Meta{Name: "w", Namespace: "default"}, Type: "widgets.example.com", Body: `{}`}
	if _, err := st.store.create(w); err != nil {
		t.Fatal(err)
	}
	svc := &Service{Meta: Meta{Name: "w", Namespace: "default", Owner: Owner{Kind: KindCustom, Type: w.Type, Name: w.Name, UID: w.UID}}}
	if _, err := st.store.create(svc); err != nil {
		t.Fatal(err)
	}
	st.undelivered = 0
	if _, err := st.Quiesce(500); err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := st.store.delete(RefOf(w), -1, PropagateBackground, false); err != nil {
		t.Fatal(err)
	}
	st.undelivered = 0
	if r := st.Step(Action{Op: OpCrash, Who: GarbageCollector}); r.Err != nil { // before it hears of the deletion
		t.Fatal(r.Err)
	}
	if _, err := st.Quiesce(500); err != nil {
		t.Fatal(err)
	}
	if st.Get(RefOf(svc)) != nil {
		t.Fatal("the Service of a Widget that went while the collector was down is still there")
	}
}

// A view keys custom resources by type: a Widget and a Gadget of one
// name are two objects, and the garbage collector's queue keys read back.
func TestViewsKeepCustomTypesApart(t *testing.T) {
	m := NewMemory(GarbageCollector)
	w := &Custom{Meta: Meta{Name: "hello", Namespace: "default", UID: 1}, Type: "widgets.example.com"}
	g := &Custom{Meta: Meta{Name: "hello", Namespace: "default", UID: 2}, Type: "gadgets.example.com"}
	m.Apply(WatchEvent{Type: Added, Obj: w})
	m.Apply(WatchEvent{Type: Added, Obj: g})
	if got := m.List(KindCustom); len(got) != 2 || got[0] != g || got[1] != w {
		t.Fatalf("List(KindCustom) = %v", got)
	}
	if m.GetRef(RefOf(w)) != w || m.GetRef(RefOf(g)) != g {
		t.Fatal("a view mixes up two custom types of one name")
	}
	m.Apply(WatchEvent{Type: Deleted, Obj: w})
	if m.GetRef(RefOf(w)) != nil || m.GetRef(RefOf(g)) != g {
		t.Fatal("deleting one custom type took the other")
	}
	// A built-in kind the model lacks is a custom type too.
	for _, s := range []string{"widgets.example.com/default/hello", "gadgets.example.com/cluster-wide", "configmaps/default/hello"} {
		r, ok := ParseRef(s)
		if !ok || r.Kind != KindCustom || r.String() != s {
			t.Fatalf("ParseRef(%q) = %+v, %v", s, r, ok)
		}
	}
	if _, ok := ParseRef("custom/default/hello"); ok {
		t.Fatal("ParseRef reads a custom ref without its type")
	}
}
