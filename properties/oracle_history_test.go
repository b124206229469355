package properties

import (
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// TestReplayMovesADriftMetAgainstAnEarlierWrite: the operator's view of
// Task b still held its first write (not suspended) when it met the
// deletion of b's Deployment, made after the second write (suspended).
// Its reconcile recreated the Deployment; the reference replays the drift
// right after the first write, as the operator met it. Replayed where it
// was written (after the suspension), the reference never recreated the
// Deployment and the differential false-alarmed (CI of 68b1a3b).
func TestReplayMovesADriftMetAgainstAnEarlierWrite(t *testing.T) {
	b := ownerKey{schema.GroupVersionKind{Group: "probe.example.com", Version: "v1", Kind: "Task"}, "default", "b"}
	a := ownerKey{b.Kind, "default", "a"}
	h := &history{}
	unsuspended := &historyInput{Owner: b, Verb: "set", Settle: true, uid: "u1", rev: 10}
	suspended := &historyInput{Owner: b, Verb: "set", uid: "u1", rev: 12}
	other := &historyInput{Owner: a, Verb: "set", Settle: true, uid: "u2", rev: 13}
	drift := &historyInput{Owner: b, Verb: "drift delete", Settle: true, asOf: unsuspended}
	last := &historyInput{Owner: b, Verb: "set", uid: "u1", rev: 15, last: true}
	for _, in := range []*historyInput{unsuspended, suspended, other, drift, last} {
		h.inputs = append(h.inputs, in)
	}
	var got []string
	for _, in := range h.replay() {
		got = append(got, in.Owner.Name+" "+in.Verb)
	}
	want := []string{"b set", "b drift delete", "a set", "b set", "b set"}
	if len(got) != len(want) {
		t.Fatalf("replay: %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("replay: %v, want %v", got, want)
		}
	}
	if r := h.replay(); !r[1].Settle || r[3].Settle {
		t.Fatalf("the drift settles, the suspension (not settled in the run) does not: %+v", r)
	}
}
