package cluster

import (
	"strings"
	"testing"

	"github.com/converge-dev/converge/impl/store/storetest"
	"github.com/converge-dev/converge/model"
)

// pair runs the model and the stepped implementation side by side.
type pair struct {
	t    *testing.T
	m    *model.State
	s    *Stepped
	chkM *model.Checker
	chkS *model.Checker
	log  []string
}

func newPair(t *testing.T) *pair {
	t.Helper()
	s, err := NewStepped(SteppedConfig{Store: storetest.Store(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return &pair{t: t, m: model.New(model.Config{}), s: s, chkM: model.NewChecker(), chkS: model.NewChecker()}
}

// step applies one action to both and fails on the first difference.
func (p *pair) step(a model.Action) {
	p.t.Helper()
	rm := p.m.Step(a)
	rs := p.s.Step(a)
	lm, ls := model.FormatStep(a, rm), model.FormatStep(a, rs)
	p.log = append(p.log, lm)
	if lm != ls {
		p.t.Fatalf("step %d differs:\n model: %s\n impl:  %s\nso far:\n  %s", len(p.log), lm, ls, strings.Join(p.log, "\n  "))
	}
	sm, ss := p.m.Snapshot(), p.s.Snapshot()
	if d := model.Diff(sm, ss, "model", "impl"); len(d) > 0 {
		p.t.Fatalf("after step %d (%s) the states differ:\n  %s\nso far:\n  %s", len(p.log), a, strings.Join(d, "\n  "), strings.Join(p.log, "\n  "))
	}
	if err := p.chkS.Check(ss, rs.Writes); err != nil {
		p.t.Fatalf("impl: %v", err)
	}
	if err := p.chkM.Check(sm, rm.Writes); err != nil {
		p.t.Fatalf("model: %v", err)
	}
	if errs := p.s.Errors(); len(errs) > 0 {
		p.t.Fatalf("impl errors: %v", errs)
	}
}

func (p *pair) script(lines ...string) {
	p.t.Helper()
	for _, l := range lines {
		a, err := model.ParseAction(l)
		if err != nil {
			p.t.Fatal(err)
		}
		p.step(a)
	}
}

// quiesce follows the model's fair schedule on both.
func (p *pair) quiesce() {
	p.t.Helper()
	for i := 0; ; i++ {
		a, ok := p.m.NextQuiesceStep()
		b, okS := p.s.NextQuiesceStep()
		if ok != okS || a.String() != b.String() {
			p.t.Fatalf("next quiesce step differs: model %v %s, impl %v %s", ok, a, okS, b)
		}
		if !ok {
			break
		}
		if i > 2000 {
			p.t.Fatal("no quiescence")
		}
		p.step(a)
	}
	if err := model.Converged(p.s.Snapshot()); err != nil {
		p.t.Fatalf("impl: %v", err)
	}
}

func TestSteppedSeedDeploymentFlowMatchesModel(t *testing.T) {
	p := newPair(t)
	p.script("add-node node-1", "add-node node-2", "add-node node-3",
		"apply-service myapp app=myapp port=80", "apply myapp replicas=3 image=nginx:1.27")
	p.quiesce()
	t.Logf("%d steps in lockstep", len(p.log))
}
