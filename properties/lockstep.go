package properties

import (
	"errors"
	"fmt"

	"pgregory.net/rapid"

	"github.com/converge-dev/converge/impl/cluster"
	"github.com/converge-dev/converge/model"
)

// LockstepOptions are Lockstep's options. The zero value is the property
// without faults against the correct model.
type LockstepOptions struct {
	// Faults lets the generator draw faults (stale views, relists,
	// crashes, container crashes, node down and up). The zero value draws
	// none.
	Faults bool
	// Model is the model impl is compared with. impl must run the same
	// decisions (cluster.SteppedConfig.Decisions), so a mutant changes the
	// shared decision code on both sides. The zero value is the correct
	// model.
	Model model.Config
	// TimeTravel names the components the time-travel fault may restart
	// against a lagging apiserver, drawn with the other faults when Faults
	// is set (see ImplOptions.TimeTravel). The zero value draws none.
	TimeTravel []string
}

// Lockstep is the model-vs-implementation property: each step draws one
// action from the model's enabled set and applies it to both; after every
// step the results, the enabled steps and the projected states must be
// equal and the invariants hold on both (Pair.Step). Once faults stop, both
// quiesce on the model's fair schedule and must converge (Pair.Finish). A
// failure prints the message and the script, which ReplayScript
// reproduces, and saves it as a trace.
func Lockstep(t *rapid.T, impl *cluster.Stepped, o LockstepOptions) {
	faults, cfg := o.Faults, o.Model
	p := NewPair(cfg, impl)
	src := withTimeTravel(p.Model, o.TimeTravel)
	check := func(err error) {
		if err != nil {
			t.Fatalf("%v\n%s\ntrace: %s (converge trace replay FILE --against impl)", err, p.Script, saveFailure("lockstep", p.Script, cfg))
		}
	}
	t.Repeat(map[string]func(*rapid.T){
		"action": func(rt *rapid.T) {
			a, ok := DrawAction(rt, src, faults)
			if !ok {
				rt.Skip("nothing enabled")
			}
			_, err := p.Step(a)
			check(err)
		},
	})
	check(p.Finish())
}

// modelProperty is Model with faults optional.
func modelProperty(t *rapid.T, cfg model.Config, faults bool) {
	m := newModelRun(cfg)
	check := func(err error) {
		if err != nil {
			t.Fatalf("%v\n%s\ntrace: %s", err, m.script, saveFailure("model", m.script, cfg))
		}
	}
	t.Repeat(map[string]func(*rapid.T){
		"action": func(rt *rapid.T) {
			a, ok := DrawAction(rt, m.st, faults)
			if !ok {
				rt.Skip("nothing enabled")
			}
			check(m.step(a))
		},
	})
	check(m.finish())
}

// modelRun is the model property's engine without rapid: the checks of
// Model after every action, then recovery, quiesce and Converged.
type modelRun struct {
	st     *model.State
	chk    *model.Checker
	script Script
	or     *Oracles
	last   model.Result // the last step's, for the fixed-point oracle
}

func newModelRun(cfg model.Config) *modelRun {
	return &modelRun{st: model.New(cfg), chk: model.NewChecker(), or: NewOracles()}
}

func (m *modelRun) fail(err error) error { return &Failure{Step: len(m.script), Msg: err.Error()} }

func (m *modelRun) step(a model.Action) error {
	m.script = append(m.script, a)
	m.or.Before(m.st, m.st.Snapshot, a)
	r := m.st.Step(a)
	m.last = r
	if errors.Is(r.Err, model.ErrNotEnabled) {
		return m.fail(r.Err)
	}
	s := m.st.Snapshot()
	if err := m.chk.Check(s, r.Writes); err != nil {
		return m.fail(err)
	}
	if err := m.or.After(m.st, s, a, r.Writes); err != nil {
		return m.fail(err)
	}
	return nil
}

func (m *modelRun) finish() error {
	for _, a := range m.st.Recovery() {
		if err := m.step(a); err != nil {
			return err
		}
	}
	if len(m.st.Objects(model.KindNode)) == 0 {
		if err := m.step(model.Action{Op: model.OpAddNode, Who: NodeNames[0]}); err != nil {
			return err
		}
	}
	for i := 0; ; i++ {
		a, ok := m.st.NextQuiesceStep()
		if !ok {
			break
		}
		if i > MaxQuiesceSteps {
			return m.fail(fmt.Errorf("quiesce did not finish in %d steps", MaxQuiesceSteps))
		}
		if err := m.step(a); err != nil {
			return err
		}
	}
	if err := model.Converged(m.st.Snapshot()); err != nil {
		return m.fail(err)
	}
	err := m.or.End(m.st, m.st.Snapshot(), func(a model.Action) (model.Result, error) {
		err := m.step(a)
		return m.last, err
	})
	var f *Failure
	if err != nil && !errors.As(err, &f) {
		return m.fail(err)
	}
	return err
}
