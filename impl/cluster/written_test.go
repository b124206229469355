package cluster

import (
	"fmt"
	"testing"

	"k8s.io/apimachinery/pkg/types"

	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/impl/project"
	"github.com/converge-dev/converge/model"
)

// An event that brings back the very object a write stored gets the
// writer's projection, once; a copy of it is projected anew; and only the
// last writtenKept writes are remembered.
func TestWrittenProjectionsServeTheirOwnEventOnce(t *testing.T) {
	uids := project.NewUIDs()
	pod := func(i int) api.Object {
		return &api.Pod{ObjectMeta: api.ObjectMeta{Name: fmt.Sprint("p", i), Namespace: api.DefaultNamespace, UID: types.UID(fmt.Sprint("uid-", i)), ResourceVersion: fmt.Sprint(i + 1)}}
	}
	var w writtenProjections
	stored := pod(0)
	after, err := w.project(stored, uids)
	if err != nil {
		t.Fatal(err)
	}
	if p, _ := after.(*model.Pod); p == nil || p.Name != "p0" || p.Version != 1 {
		t.Fatalf("projected %#v", after)
	}
	if _, ok := w.take(api.DeepCopy(stored)); ok {
		t.Error("a copy of the stored object was served the writer's projection")
	}
	if got, ok := w.take(stored); !ok || got != after {
		t.Errorf("the stored object's own event got %v, %v; want the writer's projection", got, ok)
	}
	if _, ok := w.take(stored); ok {
		t.Error("a projection was served twice")
	}

	first := pod(1)
	if _, err := w.project(first, uids); err != nil {
		t.Fatal(err)
	}
	for i := range writtenKept {
		if _, err := w.project(pod(i+2), uids); err != nil {
			t.Fatal(err)
		}
	}
	if _, ok := w.take(first); ok {
		t.Errorf("a write older than the last %d is still remembered", writtenKept)
	}
	if len(w.objs) != writtenKept {
		t.Errorf("%d projections remembered, want %d", len(w.objs), writtenKept)
	}
}
