package cluster

import (
	"strings"
	"testing"

	"github.com/converge-dev/converge/model"
)

// TestTimeTravelMatchesTheModel restarts the replicaset controller with
// a list served at the revision it had reached, before its own creates
// show, in lockstep: both sides list the old view, catch up through the
// same events, and make the same writes. Without expectations (a new
// process) and with the old list, the built-in controller creates the
// pods again, as upstream's could before consistent lists: the invariant
// flags it on both sides, at the same step.
func TestTimeTravelMatchesTheModel(t *testing.T) {
	p := newPair(t)
	rs := model.ReplicaSetController
	p.script("add-node node-1", "apply web replicas=2 image=nginx:1",
		"deliver deployment-controller deployments", "reconcile deployment-controller web",
		"deliver "+rs+" replicasets")
	key := p.m.EnabledSteps()
	var rsKey string
	for _, a := range key {
		if a.Op == model.OpReconcile && a.Who == rs {
			rsKey = a.Key
		}
	}
	if rsKey == "" {
		t.Fatalf("no replicaset key queued: %v", key)
	}
	p.script("reconcile "+rs+" "+rsKey, "time-travel "+rs, "relist "+rs)
	if n := len(p.s.comps[rs].mem.List(model.KindPod)); n != 0 {
		t.Fatalf("the old list shows %d pods, want none (its creates came after)", n)
	}
	a := model.Action{Op: model.OpReconcile, Who: rs, Key: rsKey}
	rm, rsr := p.m.Step(a), p.s.Step(a)
	if lm, ls := model.FormatStep(a, rm), model.FormatStep(a, rsr); lm != ls {
		t.Fatalf("differ:\n model: %s\n impl:  %s", lm, ls)
	}
	em := p.chkM.Check(p.m.Snapshot(), rm.Writes)
	es := p.chkS.Check(p.s.Snapshot(), rsr.Writes)
	if em == nil || es == nil || !strings.Contains(em.Error(), "more pods than it asked for") || em.Error() != es.Error() {
		t.Fatalf("want the same violation on both sides:\n model: %v\n impl:  %v", em, es)
	}
	// Catching up: the watch from the old revision delivers the pods,
	// the same on both sides.
	a = model.Action{Op: model.OpDeliver, Who: rs, Kind: model.KindPod}
	if lm, ls := model.FormatStep(a, p.m.Step(a)), model.FormatStep(a, p.s.Step(a)); lm != ls || !strings.Contains(lm, "ADDED pods/") {
		t.Fatalf("catching up:\n model: %s\n impl:  %s", lm, ls)
	}
	if d := model.Diff(p.m.Snapshot(), p.s.Snapshot(), "model", "impl"); len(d) > 0 {
		t.Fatalf("states differ: %v", d)
	}
	if n := len(p.s.comps[rs].mem.List(model.KindPod)); n == 0 {
		t.Fatal("the watch from the old revision delivered no pod")
	}
}

// TestTimeTravelAfterACompactionListsTheLatest: once the old revision is
// compacted away, the restart's list is the latest one, on both sides.
func TestTimeTravelAfterACompactionListsTheLatest(t *testing.T) {
	p := newPair(t)
	rs := model.ReplicaSetController
	p.script("add-node node-1", "apply web replicas=1 image=nginx:1",
		"deliver deployment-controller deployments", "reconcile deployment-controller web",
		"time-travel "+rs, "compact", "relist "+rs)
	if n := len(p.s.comps[rs].mem.List(model.KindReplicaSet)); n != 1 {
		t.Fatalf("the list after a compaction shows %d ReplicaSets, want the latest (1)", n)
	}
	p.quiesce()
}
