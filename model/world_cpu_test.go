package model

import (
	"slices"
	"testing"
)

func mustStep(t *testing.T, st *State, lines ...string) {
	t.Helper()
	for _, l := range lines {
		a, err := ParseAction(l)
		if err != nil {
			t.Fatal(err)
		}
		if r := st.Step(a); r.Err != nil {
			t.Fatalf("%s: %v", l, r.Err)
		}
	}
}

// A pod whose only node another tenant has filled stays Pending with the
// scheduler's "Insufficient cpu"; freeing the node schedules it; a node
// with a pod bound to it is not offered the fault, and recovery frees.
func TestNodeCPUFull(t *testing.T) {
	st := New(Config{})
	mustStep(t, st, "add-node node-1")
	st.Drain(Scheduler, 100)
	full := Action{Op: OpNodeCPUFull, Who: "node-1"}
	if !slices.Contains(st.EnabledWorldFaults(), full) {
		t.Fatalf("world faults %v lack %s on an empty node", st.EnabledWorldFaults(), full)
	}
	mustStep(t, st, "node-cpu-full node-1", "create-pod solo image=nginx:1")
	st.Drain(Scheduler, 100)
	p := st.Snapshot().Objects[RefTo(KindPod, "solo")].(*Pod)
	if p.NodeName != "" {
		t.Fatalf("pod bound to %s on a full node", p.NodeName)
	}
	if got, want := WhyUnschedulable(p, st.Objects(KindNode), st.Objects(KindPod), st.CPUFullNodes()...), "0/1 nodes are available: 1 Insufficient cpu."; got != want {
		t.Fatalf("WhyUnschedulable = %q, want %q", got, want)
	}
	if rec := st.Recovery(); !slices.Contains(rec, Action{Op: OpNodeCPUFrees, Who: "node-1"}) {
		t.Fatalf("recovery %v does not free node-1", rec)
	}
	mustStep(t, st, "node-cpu-frees node-1")
	st.Drain(Scheduler, 100)
	if p := st.Snapshot().Objects[RefTo(KindPod, "solo")].(*Pod); p.NodeName != "node-1" {
		t.Fatalf("after the node frees, pod on %q, want node-1", p.NodeName)
	}
	for _, a := range st.EnabledWorldFaults() {
		if a.Op == OpNodeCPUFull {
			t.Fatalf("%s offered on a node with a pod bound", a)
		}
	}
	if st.enabled(full) {
		t.Fatalf("%s enabled on a node with a pod bound", full)
	}
}

// The tenant's CPU is counted beside the pods' and only on its node: a
// pod goes to the node that is not full even where it scores lower.
func TestPickNodeSkipsFullNode(t *testing.T) {
	small := &Node{Meta: Meta{Name: "a"}, Ready: true, CPU: 1000, Memory: 1000, MaxPods: 10}
	big := &Node{Meta: Meta{Name: "b"}, Ready: true, CPU: 8000, Memory: 8000, MaxPods: 10}
	p := &Pod{Meta: Meta{Name: "p"}, CPU: 100, Memory: 100}
	nodes := []Obj{small, big}
	if got := PickNode(p, nodes, nil); got != "b" {
		t.Fatalf("PickNode = %q, want b (least allocated)", got)
	}
	if got := PickNode(p, nodes, nil, "b"); got != "a" {
		t.Fatalf("PickNode with b full = %q, want a", got)
	}
	if got := WhyUnschedulable(p, nodes, nil, "a", "b"); got != "0/2 nodes are available: 2 Insufficient cpu." {
		t.Fatalf("WhyUnschedulable = %q", got)
	}
}
