package properties

import (
	"errors"
	"fmt"
	"strings"

	"pgregory.net/rapid"

	"github.com/converge-dev/converge/model"
)

// MaxQuiesceSteps bounds Quiesce in every property.
const MaxQuiesceSteps = 5000

// Script is the actions of a run so far, printable as a replayable script.
type Script []model.Action

func (s Script) String() string {
	lines := make([]string, len(s))
	for i, a := range s {
		lines[i] = a.String()
	}
	return fmt.Sprintf("script (%d actions):\n  %s", len(s), strings.Join(lines, "\n  "))
}

// Model is the model property: random interleavings of user actions,
// component steps and faults with the invariants after every step, then
// recovery, Quiesce and Converged.
func Model(t *rapid.T, cfg model.Config) {
	st := model.New(cfg)
	chk := model.NewChecker()
	var script Script
	fail := func(err error) {
		t.Fatalf("%v\n%s\ntrace: %s", err, script, saveFailure(script, cfg))
	}
	apply := func(a model.Action) {
		script = append(script, a)
		r := st.Step(a)
		if errors.Is(r.Err, model.ErrNotEnabled) {
			fail(r.Err)
		}
		if err := chk.Check(st.Snapshot(), r.Writes); err != nil {
			fail(err)
		}
	}
	t.Repeat(map[string]func(*rapid.T){
		"action": func(t *rapid.T) {
			a, ok := DrawAction(t, st, true)
			if !ok {
				t.Skip("nothing enabled")
			}
			apply(a)
		},
	})
	for _, a := range st.Recovery() {
		apply(a)
	}
	if len(st.Objects(model.KindNode)) == 0 {
		apply(model.Action{Op: model.OpAddNode, Who: NodeNames[0]})
	}
	for i := 0; ; i++ {
		a, ok := st.NextQuiesceStep()
		if !ok {
			break
		}
		if i > MaxQuiesceSteps {
			fail(fmt.Errorf("quiesce did not finish in %d steps", MaxQuiesceSteps))
		}
		apply(a)
	}
	if err := model.Converged(st.Snapshot()); err != nil {
		fail(err)
	}
}
