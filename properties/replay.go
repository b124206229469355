package properties

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/converge-dev/converge/impl/cluster"
	"github.com/converge-dev/converge/model"
)

// ErrBadScript is wrapped by every error about a script's text.
var ErrBadScript = errors.New("properties: bad script")

// Failure is a failed check: the number of actions applied when it was
// found (Step) and the message the property prints above the script.
type Failure struct {
	Step int
	Msg  string
}

func (f *Failure) Error() string { return f.Msg }

// Results are one action's results on both sides of a Pair.
type Results struct {
	Model, Impl model.Result
}

// Pair runs the model and the stepped implementation side by side with the
// lockstep property's checks after every action: equal step results, equal
// projected states, the invariants on both, equal enabled steps, no
// internal errors in the implementation.
type Pair struct {
	Model  *model.State
	Impl   *cluster.Stepped
	Script Script // the actions applied so far
	chkM   *model.Checker
	chkS   *model.Checker
	or     *Oracles // on the model side: the states are equal
	lines  model.LineCache
}

// NewPair starts a model with cfg next to impl. The implementation must be
// configured with the same decisions (cluster.SteppedConfig.Decisions).
func NewPair(cfg model.Config, impl *cluster.Stepped) *Pair {
	return &Pair{Model: model.New(cfg), Impl: impl, chkM: model.NewChecker(), chkS: model.NewChecker(), or: NewOracles()}
}

func (p *Pair) fail(format string, args ...any) error {
	return &Failure{Step: len(p.Script), Msg: fmt.Sprintf(format, args...)}
}

// Step applies one action to both sides. The error is a *Failure.
func (p *Pair) Step(a model.Action) (Results, error) {
	p.Script = append(p.Script, a)
	n := len(p.Script)
	p.or.Before(p.Model, p.Model.Snapshot, a)
	rm, rs := p.Model.Step(a), p.Impl.Step(a)
	r := Results{Model: rm, Impl: rs}
	if lm, ls := model.FormatStep(a, rm), model.FormatStep(a, rs); lm != ls {
		return r, p.fail("step %d differs:\n model: %s\n impl:  %s", n, lm, ls)
	}
	sm, ss := p.Model.Snapshot(), p.Impl.Snapshot()
	if d := p.lines.Diff(sm, ss, "model", "impl"); len(d) > 0 {
		return r, p.fail("after step %d the states differ:\n  %s", n, strings.Join(d, "\n  "))
	}
	if err := p.chkM.Check(sm, rm.Writes); err != nil {
		return r, p.fail("model: %v", err)
	}
	if err := p.chkS.Check(ss, rs.Writes); err != nil {
		return r, p.fail("impl: %v", err)
	}
	if em, es := p.Model.EnabledSteps(), p.Impl.EnabledSteps(); !slices.Equal(em, es) {
		// Equal actions print alike; unequal ones are compared as printed,
		// as they always were.
		if em, es := fmt.Sprint(em), fmt.Sprint(es); em != es {
			return r, p.fail("after step %d the enabled steps differ:\n model: %s\n impl:  %s", n, em, es)
		}
	}
	if errs := p.Impl.Errors(); len(errs) > 0 {
		return r, p.fail("impl errors: %v", errs)
	}
	if err := p.or.After(p.Model, sm, a, rm.Writes); err != nil {
		return r, p.fail("%v", err)
	}
	return r, nil
}

// Finish ends every fault (Recovery), adds a node if there is none,
// quiesces both on the model's fair schedule and checks that the
// implementation converged, as the lockstep property does once its random
// actions are over.
func (p *Pair) Finish() error {
	for _, a := range p.Model.Recovery() {
		if _, err := p.Step(a); err != nil {
			return err
		}
	}
	if len(p.Model.Objects(model.KindNode)) == 0 {
		if _, err := p.Step(model.Action{Op: model.OpAddNode, Who: NodeNames[0]}); err != nil {
			return err
		}
	}
	for i := 0; ; i++ {
		a, ok := p.Model.NextQuiesceStep()
		if !ok {
			break
		}
		if i > MaxQuiesceSteps {
			return p.fail("quiesce did not finish in %d steps", MaxQuiesceSteps)
		}
		if _, err := p.Step(a); err != nil {
			return err
		}
	}
	if err := model.Converged(p.Impl.Snapshot()); err != nil {
		return p.fail("impl: %v", err)
	}
	err := p.or.End(p.Model, p.Model.Snapshot(), func(a model.Action) (model.Result, error) {
		r, err := p.Step(a)
		return r.Model, err
	})
	var f *Failure
	if err != nil && !errors.As(err, &f) {
		return p.fail("%v", err)
	}
	return err
}

// ParseScript reads a script: one model.ParseAction line per action; blank
// lines and lines starting with # are skipped. It also accepts the
// property's own printout ("script (n actions):" and indented lines).
func ParseScript(r io.Reader) (Script, error) {
	var s Script
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") || (strings.HasPrefix(line, "script (") && strings.HasSuffix(line, "actions):")) {
			continue
		}
		a, err := model.ParseAction(line)
		if err != nil {
			return nil, fmt.Errorf("%w: line %d: %w", ErrBadScript, n, err)
		}
		s = append(s, a)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadScript, err)
	}
	return s, nil
}

// ReplayOptions are ReplayScript's options. The zero value replays against
// the correct model.
type ReplayOptions struct {
	// Model is the model s is compared with; s must run the same variant
	// (a mutant). The zero value is the correct model.
	Model model.Config
}

// ReplayScript runs a script on the model and on s in lockstep, with the
// lockstep property's checks, then Recovery, quiesce and Converged. It
// returns nil, an error wrapping ErrBadScript, or a *Failure with the same
// step and message the lockstep property reported.
func ReplayScript(r io.Reader, s *cluster.Stepped, o ReplayOptions) error {
	cfg := o.Model
	script, err := ParseScript(r)
	if err != nil {
		return err
	}
	p := NewPair(cfg, s)
	for _, a := range script {
		if _, err := p.Step(a); err != nil {
			return err
		}
	}
	return p.Finish()
}

// ReplayModel runs a script on the model alone with the model property's
// checks (an action that is not enabled, the invariants, then Recovery,
// quiesce and Converged). Failures are *Failure with the model property's
// message.
func ReplayModel(r io.Reader, cfg model.Config) error {
	script, err := ParseScript(r)
	if err != nil {
		return err
	}
	m := newModelRun(cfg)
	for _, a := range script {
		if err := m.step(a); err != nil {
			return err
		}
	}
	return m.finish()
}
