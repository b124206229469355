package properties

import (
	"fmt"
	"strings"

	"pgregory.net/rapid"

	"github.com/converge-dev/converge/impl/cluster"
	"github.com/converge-dev/converge/model"
)

// Lockstep is the model-vs-implementation property: each step draws one
// action from the model's enabled set and applies it to both; after every
// step the results, the enabled steps and the projected states must be
// equal and the invariants hold on both. Once faults stop, both quiesce on
// the model's fair schedule and must converge to equal states.
func Lockstep(t *rapid.T, impl *cluster.Stepped, faults bool) {
	m := model.New(model.Config{})
	chkM, chkS := model.NewChecker(), model.NewChecker()
	var script Script
	fail := func(format string, args ...any) {
		t.Fatalf("%s\n%s\ntrace: %s (converge trace replay FILE --against impl)", fmt.Sprintf(format, args...), script, saveFailure(script, model.Config{}))
	}
	apply := func(a model.Action) {
		script = append(script, a)
		rm, rs := m.Step(a), impl.Step(a)
		if lm, ls := model.FormatStep(a, rm), model.FormatStep(a, rs); lm != ls {
			fail("step %d differs:\n model: %s\n impl:  %s", len(script), lm, ls)
		}
		sm, ss := m.Snapshot(), impl.Snapshot()
		if d := model.Diff(sm, ss, "model", "impl"); len(d) > 0 {
			fail("after step %d the states differ:\n  %s", len(script), strings.Join(d, "\n  "))
		}
		if err := chkM.Check(sm, rm.Writes); err != nil {
			fail("model: %v", err)
		}
		if err := chkS.Check(ss, rs.Writes); err != nil {
			fail("impl: %v", err)
		}
		if em, es := fmt.Sprint(m.EnabledSteps()), fmt.Sprint(impl.EnabledSteps()); em != es {
			fail("after step %d the enabled steps differ:\n model: %s\n impl:  %s", len(script), em, es)
		}
		if errs := impl.Errors(); len(errs) > 0 {
			fail("impl errors: %v", errs)
		}
	}
	t.Repeat(map[string]func(*rapid.T){
		"action": func(t *rapid.T) {
			a, ok := DrawAction(t, m, faults)
			if !ok {
				t.Skip("nothing enabled")
			}
			apply(a)
		},
	})
	for _, a := range m.Recovery() {
		apply(a)
	}
	if len(m.Objects(model.KindNode)) == 0 {
		apply(model.Action{Op: model.OpAddNode, Who: NodeNames[0]})
	}
	for i := 0; ; i++ {
		a, ok := m.NextQuiesceStep()
		if !ok {
			break
		}
		if i > MaxQuiesceSteps {
			fail("quiesce did not finish in %d steps", MaxQuiesceSteps)
		}
		apply(a)
	}
	if err := model.Converged(impl.Snapshot()); err != nil {
		fail("impl: %v", err)
	}
}
