package properties

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/converge-dev/converge/impl/cluster"
	"github.com/converge-dev/converge/impl/controller"
	"github.com/converge-dev/converge/model"
)

// alreadyExists fails every reconcile, as a controller that creates a
// fixed name and takes "already exists" for an error does.
type alreadyExists struct{}

func (alreadyExists) Reconcile(context.Context, controller.Request) (controller.Result, error) {
	return controller.Result{}, errors.New(`replicasets.apps "x" already exists`)
}

// TestEndlessQuiesceNamesTheKeyAndItsError: a controller whose reconcile
// fails on every pass never lets the quiesce end (the run always has a
// node, which it watches); the failure names its key, how many times it ran and the error it returned, and prints one
// round of the repeated steps, not thousands.
func TestEndlessQuiesceNamesTheKeyAndItsError(t *testing.T) {
	defer SetRapidFlags(t, map[string]string{"rapid.checks": "1", "rapid.steps": "5", "rapid.nofailfile": "true", "rapid.shrinktime": "1ms"})()
	tb := NewReport(t.Name())
	spec := cluster.ControllerSpec{Name: "creator", Watches: []model.Kind{model.KindNode},
		New: func(cluster.ControllerEnv) controller.Reconciler { return alreadyExists{} }}
	CheckControllerTB(tb, t, spec, ImplOptions{})
	text := tb.Text()
	if !tb.Failed() {
		t.Fatal("a quiesce that never ends passed")
	}
	for _, want := range []string{"these keys kept coming back", "creator node-", ": reconciled ",
		`error "replicasets.apps \"x\" already exists"`, "queued again with backoff", "above over and over"} {
		if !strings.Contains(text, want) {
			t.Errorf("the failure does not say %q:\n%s", want, tail(text, 3000))
		}
	}
	if i := strings.LastIndex(text, "quiesce did not finish"); i >= 0 {
		t.Log(text[i:min(len(text), i+1500)])
	}
	// The workload's progress in the quiesce may interleave with the
	// failing reconcile any number of times; what the cut must remove is
	// the endless round at the end: the note says how many steps it has,
	// and that many lines before the note, after the quiesce's start, hold
	// the failing reconcile.
	lines := strings.Split(text, "\n")
	mark := slices.IndexFunc(lines, func(l string) bool { return strings.TrimSpace(l) == quiesceMark })
	note := slices.IndexFunc(lines, func(l string) bool { return strings.Contains(l, "above over and over") })
	var round int
	if note >= 0 {
		fmt.Sscanf(lines[note][strings.Index(lines[note], "the last ")+len("the last "):], "%d", &round)
	}
	if mark < 0 || round < 1 || round > 10 || note-round <= mark ||
		!slices.ContainsFunc(lines[note-round:note], func(l string) bool { return strings.HasPrefix(strings.TrimSpace(l), "reconcile creator ") }) {
		t.Errorf("the failure does not end on one round of the repeated reconcile: quiesce's start at line %d, note at line %d, a round of %d", mark, note, round)
	}
	// goTestRecord keeps the script only if all of it parses.
	if r := goTestRecord(t.Name(), 0, 0, text, 0); r.Steps == 0 {
		t.Errorf("the cut printout does not parse as a script")
	}
}

// tail is the end of s, for a failure message.
func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "..." + s[len(s)-n:]
}

// TestCutRepetitionKeepsOneRound: steps that end in a repeated round are
// cut after its first occurrence, the shortest such cut; steps with no
// round keep both ends.
func TestCutRepetitionKeepsOneRound(t *testing.T) {
	steps := []string{"deliver a", "reconcile a", "deliver b"}
	for range 1000 {
		steps = append(steps, "reconcile x", "deliver x")
	}
	keep, note := cutRepetition(steps)
	if want := []string{"deliver a", "reconcile a", "deliver b", "reconcile x", "deliver x"}; fmt.Sprint(keep) != fmt.Sprint(want) {
		t.Errorf("kept %v, want %v", keep, want)
	}
	if want := "# ... and 1998 more steps, the last 2 above over and over"; note != want {
		t.Errorf("note %q, want %q", note, want)
	}
	var growing []string
	for i := range 300 {
		growing = append(growing, fmt.Sprintf("reconcile x-%d", i))
	}
	keep, note = cutRepetition(growing)
	if note != "" || len(keep) != 2*headTail+1 || keep[0] != growing[0] || keep[len(keep)-1] != growing[len(growing)-1] {
		t.Errorf("no round: kept %d steps (%q ... %q), note %q", len(keep), keep[0], keep[len(keep)-1], note)
	}
	short := []string{"reconcile a", "reconcile b"}
	if keep, note = cutRepetition(short); fmt.Sprint(keep) != fmt.Sprint(short) || note != "" {
		t.Errorf("two steps: kept %v, note %q", keep, note)
	}
}

// standInCluster is a fakeCluster whose replicaset controller is disabled
// and stood in for by my-replicasets.
type standInCluster struct{ *fakeCluster }

func (standInCluster) StandIns(name string) ([]string, bool) {
	if name == model.ReplicaSetController {
		return []string{"my-replicasets"}, true
	}
	return nil, false
}

// TestCaughtUpWaitsForTheStandIn: with the built-in replicaset controller
// disabled, its idle queue does not make it caught up while the component
// doing its work has keys queued (the exemption), and once that component
// is idle too, a ReplicaSet short of pods is still caught (its teeth).
func TestCaughtUpWaitsForTheStandIn(t *testing.T) {
	labels := map[string]string{"app": "web"}
	rs := &model.ReplicaSet{Meta: model.Meta{Name: "web-1", Namespace: "team-b", UID: 2}, Replicas: 2, PodLabels: labels}
	short := snap(rs)
	comps := []string{model.ReplicaSetController, "my-replicasets"}
	busy := standInCluster{&fakeCluster{comps: comps, queue: map[string][]string{"my-replicasets": {"team-b/web-1"}}}}
	if err := CaughtUp(busy, short); err != nil {
		t.Fatalf("the stand-in has work queued: %v", err)
	}
	idle := standInCluster{&fakeCluster{comps: comps}}
	wantViolation(t, CaughtUp(idle, short), "replicaset web-1 has 0 live non-terminating pods, spec.replicas 2")
}
