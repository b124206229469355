package properties

import (
	"reflect"
	"testing"

	"github.com/converge-dev/converge/model"
	"github.com/converge-dev/converge/traces"
)

// snapshotOf is a snapshot holding objs.
func snapshotOf(objs ...model.Obj) *model.Snapshot {
	s := &model.Snapshot{Objects: map[model.Ref]model.Obj{}}
	for _, o := range objs {
		s.Objects[model.RefOf(o)] = o
	}
	return s
}

// An object still being deleted once all is quiet fails the end of an
// operator's check, with its finalizers named; one object or several.
func TestNothingTerminating(t *testing.T) {
	live := &model.Custom{Meta: model.Meta{Name: "a", Namespace: "default", UID: 1}, Type: "webapps.example.com", Body: `{}`}
	stuck := &model.Custom{Meta: model.Meta{Name: "b", Namespace: "default", UID: 2, Deleting: true, Finalizers: []string{"example.com/cleanup"}},
		Type: "webapps.example.com", Body: `{}`}
	if err := nothingTerminating(snapshotOf(live)); err != nil {
		t.Fatalf("nothing is being deleted: %v", err)
	}
	err := nothingTerminating(snapshotOf(live, stuck))
	if want := "webapps.example.com/default/b (finalizers [example.com/cleanup]) is still terminating: nothing removes its finalizers"; err == nil || err.Error() != want {
		t.Fatalf("got %v, want %s", err, want)
	}
	pod := &model.Pod{Meta: model.Meta{Name: "p", Namespace: "default", UID: 3, Deleting: true, Finalizers: []string{"x"}}}
	err = nothingTerminating(snapshotOf(live, stuck, pod))
	if want := "pods/default/p (finalizers [x]), webapps.example.com/default/b (finalizers [example.com/cleanup]) are still terminating: nothing removes their finalizers"; err == nil || err.Error() != want {
		t.Fatalf("got %v, want %s", err, want)
	}
}

// An operator's write names the fields it changed, found by resource and
// name in the states before and after the step; a name that two objects
// share names none.
func TestNameFields(t *testing.T) {
	before := &model.Custom{Meta: model.Meta{Name: "a", Namespace: "default", UID: 1}, Type: "webapps.example.com", Body: `{"spec":{"replicas":1}}`}
	after := &model.Custom{Meta: model.Meta{Name: "a", Namespace: "default", UID: 1, Finalizers: []string{"f"}}, Type: "webapps.example.com",
		Body: `{"spec":{"replicas":1},"status":{"ready":true}}`}
	other := &model.Custom{Meta: model.Meta{Name: "a", Namespace: "team", UID: 2}, Type: "webapps.example.com", Body: `{}`}
	writes := []traces.Write{{Verb: "UPDATE", Resource: "webapps", Name: "a"}, {Verb: "CREATE", Resource: "services", Name: "a"}}
	nameFields(writes, snapshotOf(before), snapshotOf(after))
	if want := []string{"metadata.finalizers", "status.ready"}; !reflect.DeepEqual(writes[0].Fields, want) {
		t.Fatalf("fields %v, want %v", writes[0].Fields, want)
	}
	if writes[1].Fields != nil {
		t.Fatalf("a write of an object in neither state names %v", writes[1].Fields)
	}
	writes = []traces.Write{{Verb: "UPDATE", Resource: "webapps", Name: "a"}}
	nameFields(writes, snapshotOf(before, other), snapshotOf(after, other))
	if writes[0].Fields != nil {
		t.Fatalf("an ambiguous write names %v", writes[0].Fields)
	}
}
