package main

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/converge-dev/converge/model"
)

// step builds a reconcile by who of key whose store writes land at revs
// (a local write first when local is set).
func orderStep(who, key string, local string, revs ...int64) (model.Action, model.Result) {
	a := model.Action{Op: model.OpReconcile, Who: who, Key: key}
	var r model.Result
	if local != "" {
		r.Writes = append(r.Writes, model.Write{Actor: who, Verb: "RUNTIME-START", Local: local})
	}
	for _, rev := range revs {
		r.Writes = append(r.Writes, model.Write{Actor: who, Verb: "STATUS", Ref: model.Ref{Kind: model.KindPod, Name: key}, Rev: rev})
	}
	return a, r
}

func testCausalLog(from int64, storeRev *int64, clock *time.Time) (*causalLog, *[]string) {
	var out []string
	l := newCausalLog(from, func(s string) { out = append(out, s) },
		func() (int64, error) { return *storeRev, nil },
		func(a model.Action, _ model.Result) bool { return a.Op != model.OpHeartbeat })
	l.now = func() time.Time { return *clock }
	return l, &out
}

// A kubelet heard before the binding it acted on is printed after it, and
// nothing is printed while an earlier revision has not been heard from.
func TestCausalLogPutsTheCauseFirst(t *testing.T) {
	rev, clock := int64(12), time.Unix(0, 0)
	l, out := testCausalLog(10, &rev, &clock)
	l.step(orderStep("kubelet/node-1", "p-0", "containers/node-1/p-0/0", 12)) // its cause is at 11
	if len(*out) != 0 {
		t.Fatalf("printed before revision 11 was heard from: %q", *out)
	}
	l.step(orderStep(model.Scheduler, "p-0", "", 11))
	l.step(model.Action{Op: model.OpHeartbeat, Who: "node-1"}, model.Result{Writes: []model.Write{{Verb: "STATUS", Ref: model.Ref{Kind: model.KindNode, Name: "node-1"}, Rev: 13}}})
	rev = 13
	l.step(orderStep("kube-proxy/node-1", "svc", "rules/svc")) // local only: placed at 13
	want := []string{"scheduler: reconcile p-0", "kubelet/node-1: reconcile p-0", "kube-proxy/node-1: reconcile svc"}
	if len(*out) != len(want) {
		t.Fatalf("printed %q, want %d lines", *out, len(want))
	}
	for i, w := range want {
		if !strings.HasPrefix((*out)[i], w) {
			t.Fatalf("line %d is %q, want it to start %q; all: %q", i, (*out)[i], w, *out)
		}
	}
}

// A revision no step claims (a write outside the components) holds the
// log back for orphanAfter only.
func TestCausalLogLetsAnUnclaimedRevisionGo(t *testing.T) {
	rev, clock := int64(12), time.Unix(0, 0)
	l, out := testCausalLog(10, &rev, &clock)
	l.step(orderStep(model.Scheduler, "p-0", "", 12))
	clock = clock.Add(orphanAfter / 2)
	l.tick()
	if len(*out) != 0 {
		t.Fatalf("printed while revision 11 could still be heard from: %q", *out)
	}
	clock = clock.Add(orphanAfter)
	l.tick()
	if len(*out) != 1 {
		t.Fatalf("revision 11 still holds the log back: %q", *out)
	}
	l.close()
	l.step(orderStep(model.Scheduler, "p-1", "", 13))
	l.close()
	if len(*out) != 1 {
		t.Fatalf("printed after close: %q", *out)
	}
}

var (
	bindLine  = regexp.MustCompile(`BIND pods/(\S+?)(,|$| )`)
	startLine = regexp.MustCompile(`RUNTIME-START containers/[^/]+/([^/]+/[^/]+)/`)
)

// checkBindBeforeRun fails unless every pod the demo's log starts a
// container for was bound on an earlier line.
func checkBindBeforeRun(t *testing.T, log string) {
	t.Helper()
	bound := map[string]bool{}
	started := 0
	for _, line := range strings.Split(log, "\n") {
		for _, m := range bindLine.FindAllStringSubmatch(line, -1) {
			bound[m[1]] = true
		}
		for _, m := range startLine.FindAllStringSubmatch(line, -1) {
			started++
			if !bound[m[1]] {
				t.Errorf("pod %s runs before it is bound:\n%s", m[1], log)
			}
		}
	}
	if started == 0 {
		t.Errorf("the demo started no container:\n%s", log)
	}
}
