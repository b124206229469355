package model

import "testing"

// TestAPIErrorFailsTheNextWriteOnly: an armed api-error fails the
// component's next store write of a reconcile, which records nothing and
// requeues the key; the retry writes.
func TestAPIErrorFailsTheNextWriteOnly(t *testing.T) {
	st := New(Config{})
	for _, l := range []string{"apply-service web app=web port=80", "deliver endpoints-controller services", "api-error endpoints-controller 504"} {
		a, err := ParseAction(l)
		if err != nil {
			t.Fatal(err)
		}
		if r := st.Step(a); r.Err != nil {
			t.Fatalf("%s: %v", l, r.Err)
		}
	}
	if st.enabled(TransientFault(EndpointsController, st.now)) {
		t.Fatal("api-error is enabled while one is armed")
	}
	rec := Action{Op: OpReconcile, Who: EndpointsController, Key: "default/web"}
	if r := st.Step(rec); len(r.Writes) != 0 || !st.comps[EndpointsController].retry["default/web"] {
		t.Fatalf("armed reconcile: writes %v, retry %v; want none and a retry", r.Writes, st.comps[EndpointsController].retry["default/web"])
	}
	if r := st.Step(rec); len(r.Writes) != 2 || r.Writes[0].Err != nil || r.Writes[1].Ref.Kind != KindEndpointSlice {
		t.Fatalf("retry: writes %v, want the Endpoints and the EndpointSlice created", r.Writes)
	}
}

// TestTheCheckerAllowsAReusedPodName: a pod recreated under the name of
// one that is gone is a new pod, not the old one moved.
func TestTheCheckerAllowsAReusedPodName(t *testing.T) {
	chk := NewChecker()
	snap := &Snapshot{Objects: map[Ref]Obj{}}
	old := &Pod{Meta: Meta{Name: "web-0", UID: 1}, NodeName: "node-2"}
	reused := &Pod{Meta: Meta{Name: "web-0", UID: 2}}
	if err := chk.Check(snap, []Write{{Verb: VerbUpdate, Ref: RefOf(reused), Before: old, After: reused, Rev: 5}}); err != nil {
		t.Fatalf("a reused name was flagged: %v", err)
	}
	moved := &Pod{Meta: Meta{Name: "web-0", UID: 1}, NodeName: "node-3"}
	if err := chk.Check(snap, []Write{{Verb: VerbUpdate, Ref: RefOf(moved), Before: old, After: moved, Rev: 6}}); err == nil {
		t.Fatal("a pod that moved node was not flagged")
	}
}
