package model

import (
	"errors"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// Small pools keep collisions (same names, same nodes) frequent.
var (
	deploymentNames = []string{"web", "api"}
	imageNames      = []string{"nginx:1", "nginx:2", "nginx:3"}
	nodeNames       = []string{"node-1", "node-2", "node-3"}
)

// drawUser draws one user action.
func drawUser(t *rapid.T, st *State) Action {
	d := rapid.SampledFrom(deploymentNames).Draw(t, "deployment")
	switch rapid.IntRange(0, 9).Draw(t, "user") {
	case 0, 1:
		return Action{Op: OpApply, Key: d, N: rapid.IntRange(0, 4).Draw(t, "replicas"), Image: rapid.SampledFrom(imageNames).Draw(t, "image")}
	case 2:
		return Action{Op: OpScale, Key: d, N: rapid.IntRange(0, 4).Draw(t, "replicas")}
	case 3:
		return Action{Op: OpSetImage, Key: d, Image: rapid.SampledFrom(imageNames).Draw(t, "image")}
	case 4:
		return Action{Op: OpDelete, Kind: rapid.SampledFrom([]Kind{KindDeployment, KindService}).Draw(t, "kind"), Key: d}
	case 5:
		if pods := st.Objects(KindPod); len(pods) > 0 {
			return Action{Op: OpDelete, Kind: KindPod, Key: rapid.SampledFrom(pods).Draw(t, "pod").meta().Name}
		}
		return Action{Op: OpTick}
	case 6:
		return Action{Op: OpAddNode, Who: rapid.SampledFrom(nodeNames).Draw(t, "node")}
	case 7:
		return Action{Op: OpRemoveNode, Who: rapid.SampledFrom(nodeNames).Draw(t, "node")}
	case 8:
		return Action{Op: OpApplyService, Key: d, App: d, N: 80}
	}
	return Action{Op: OpTick}
}

// drawAction draws one action: mostly component steps, then user actions,
// then faults (when allowed).
func drawAction(t *rapid.T, st *State, faults bool) (Action, bool) {
	kind := rapid.IntRange(0, 9).Draw(t, "class")
	switch {
	case kind < 6:
		steps := st.EnabledSteps()
		if len(steps) == 0 {
			return Action{}, false
		}
		a := rapid.SampledFrom(steps).Draw(t, "step")
		if faults && a.Op == OpReconcile && rapid.IntRange(0, 9).Draw(t, "crash?") == 0 {
			a.CrashAfter = rapid.IntRange(1, 3).Draw(t, "crash-after")
		}
		return a, true
	case kind < 8 || !faults:
		return drawUser(t, st), true
	default:
		return rapid.SampledFrom(st.EnabledFaults()).Draw(t, "fault"), true
	}
}

// runModel is the model property: random interleavings with the invariants
// after every step, then recovery, Quiesce and Converged.
func runModel(t *rapid.T, cfg Config) {
	st := New(cfg)
	chk := NewChecker()
	var script []string
	fail := func(err error) {
		t.Fatalf("%v\nscript (%d actions):\n  %s", err, len(script), strings.Join(script, "\n  "))
	}
	apply := func(a Action) {
		script = append(script, a.String())
		r := st.Step(a)
		if errors.Is(r.Err, ErrNotEnabled) {
			fail(r.Err)
		}
		if err := chk.Check(st.Snapshot(), r.Writes); err != nil {
			fail(err)
		}
	}
	t.Repeat(map[string]func(*rapid.T){
		"action": func(t *rapid.T) {
			a, ok := drawAction(t, st, true)
			if !ok {
				t.Skip("nothing enabled")
			}
			apply(a)
		},
	})
	for _, a := range st.Recovery() {
		apply(a)
	}
	if len(st.Objects(KindNode)) == 0 {
		apply(Action{Op: OpAddNode, Who: nodeNames[0]})
	}
	for i := 0; ; i++ {
		a, ok := st.NextQuiesceStep()
		if !ok {
			break
		}
		if i > 5000 {
			fail(errors.New("quiesce did not finish in 5000 steps"))
		}
		apply(a)
	}
	if err := Converged(st.Snapshot()); err != nil {
		fail(err)
	}
}

func TestModelProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) { runModel(t, Config{}) })
}
