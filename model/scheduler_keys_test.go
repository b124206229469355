package model

import (
	"slices"
	"testing"
)

// TestSchedulerRetriesPendingPodsOnlyWhenPlacementCanChange: a node update
// that only moves its heartbeat queues nothing; one that makes the node
// Ready, and the delete of a bound pod (its resources freed), queue every
// pending pod, as upstream's scheduler requeues its unschedulable pods.
func TestSchedulerRetriesPendingPodsOnlyWhenPlacementCanChange(t *testing.T) {
	m := NewMemory(Scheduler)
	deliver := func(typ EventType, o Obj) []string {
		e := WatchEvent{Type: typ, Obj: o}
		e.Old = m.Apply(e)
		return Keys(m, e)
	}
	n := NewNode("node-1", 0, 1)
	n.Ready = false
	deliver(Added, n)
	deliver(Added, &Pod{Meta: Meta{Name: "pending", UID: 1}})
	bound := &Pod{Meta: Meta{Name: "bound", UID: 2}, NodeName: "node-1"}
	deliver(Added, bound)

	beat := n.shallow().(*Node)
	beat.Heartbeat = 2
	if got := deliver(Modified, beat); len(got) != 0 {
		t.Errorf("a heartbeat queued %v", got)
	}
	ready := beat.shallow().(*Node)
	ready.Ready = true
	if got := deliver(Modified, ready); !slices.Equal(got, []string{"pending"}) {
		t.Errorf("a node turning Ready queued %v, want [pending]", got)
	}
	if got := deliver(Deleted, bound); !slices.Equal(got, []string{"pending"}) {
		t.Errorf("a bound pod's delete queued %v, want [pending]", got)
	}
}
