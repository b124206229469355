package apiserver

import (
	"reflect"
	"strconv"
	"testing"

	"github.com/converge-dev/converge/impl/api"
)

// A client that removes the last finalizer of a pod being deleted, with a
// merge patch as kubectl patch does, gets 200 and the patched pod at the
// revision it was judged against, and a watcher sees exactly one event
// for it: DELETED, carrying the pod as it was stored, finalizer and all.
// No MODIFIED comes first, as upstream's Store.Update deletes without
// storing the update (errEmptiedFinalizers, deleteWithoutFinalizers). The
// next event is an unrelated create's, so nothing came in between.
func TestRemovingTheLastFinalizerIsOneDeletedEvent(t *testing.T) {
	e := newEnv(t)
	e.must(201, "POST", podPath, podJSON("held", map[string]string{"app": "x"}))
	e.must(200, "PATCH", podPath+"/held", `{"metadata":{"finalizers":["example.com/hold"]}}`, "Content-Type: "+mergePatchType)
	var marked api.Pod
	e.must(200, "DELETE", podPath+"/held", "").into(t, &marked)
	if marked.DeletionTimestamp == nil {
		t.Fatalf("the delete did not mark the held pod: %+v", marked.ObjectMeta)
	}
	w := e.watch(podPath + "?watch=true&resourceVersion=" + marked.ResourceVersion)

	var patched api.Pod
	e.must(200, "PATCH", podPath+"/held", `{"metadata":{"finalizers":null}}`, "Content-Type: "+mergePatchType).into(t, &patched)
	if len(patched.Finalizers) != 0 || patched.DeletionTimestamp == nil || patched.ResourceVersion != marked.ResourceVersion {
		t.Fatalf("answer: finalizers %v, deletionTimestamp %v, resourceVersion %s; want the patched pod at %s",
			patched.Finalizers, patched.DeletionTimestamp, patched.ResourceVersion, marked.ResourceVersion)
	}
	e.must(404, "GET", podPath+"/held", "")
	e.must(201, "POST", podPath, podJSON("marker", map[string]string{"app": "x"}))

	var p api.Pod
	if typ := w.next(&p); typ != api.EventDeleted || p.Name != "held" {
		t.Fatalf("first event %s %s, want DELETED held alone", typ, p.Name)
	}
	if !reflect.DeepEqual(p.Finalizers, []string{"example.com/hold"}) {
		t.Fatalf("DELETED carries finalizers %v, want the stored pod's", p.Finalizers)
	}
	stored, _ := strconv.ParseInt(marked.ResourceVersion, 10, 64)
	if p.ResourceVersion != strconv.FormatInt(stored+1, 10) {
		t.Fatalf("DELETED at %s, want %d: the one write after %d", p.ResourceVersion, stored+1, stored)
	}
	if typ := w.next(&p); typ != api.EventAdded || p.Name != "marker" {
		t.Fatalf("next event %s %s, want ADDED marker", typ, p.Name)
	}
}
