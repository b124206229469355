package properties

import (
	"errors"
	"fmt"

	"pgregory.net/rapid"

	"github.com/converge-dev/converge/impl/cluster"
	"github.com/converge-dev/converge/model"
)

// ImplOptions are the extra checks of a user's controller.
type ImplOptions struct {
	// NoWorldFaults leaves the world's faults (images that do not pull,
	// OOM kills, failing readiness probes) out of Faults, which draws
	// them by default, as Operator.NoWorldFaults does.
	NoWorldFaults bool
	// Faults draws faults too. The zero value draws none: set it for the
	// run with faults (stale views, relists, crashes, container crashes,
	// node down and up), as the README's example does.
	Faults bool
	// Invariant, if set, is checked after every step with the built-in
	// invariants.
	Invariant func(s *model.Snapshot) error
	// Converged, if set, is checked at the end with model.Converged.
	Converged func(s *model.Snapshot) error
	// Settle draws settles (DrawSettle) and DrawImplAction's actions
	// instead of DrawAction's: runs that finish rollouts. CheckController
	// turns it on unless Uniform is set.
	Settle bool
	// Uniform keeps CheckController on DrawAction's uniform draws.
	Uniform bool
	// TimeTravel names the components that the time-travel fault may
	// restart against a lagging apiserver (their first list is served at
	// the revision they had reached, then they catch up through watch
	// events), drawn with the other faults when Faults is set. Name your
	// controller (its ControllerSpec.Name) if it is meant to withstand
	// what Sieve calls time travel; the zero value draws none.
	TimeTravel []string
}

// Impl is the implementation-only property, for controllers the model does
// not have (a user's): random interleavings drawn from the implementation's
// own enabled set (with settles when o.Settle), the invariants and the
// oracles (Oracles) after every step, then recovery, a fair quiesce,
// convergence and the end-of-run oracles: intent, leaks, the differential
// run, the fixed point.
func Impl(t *rapid.T, impl *cluster.Stepped, o ImplOptions) {
	chk := model.NewChecker()
	var script Script
	fail := func(err error) {
		t.Fatalf("%v\n%s", err, script)
	}
	check := func(s *model.Snapshot) error {
		if o.Invariant != nil {
			return o.Invariant(s)
		}
		return nil
	}
	or := NewOracles()
	src := withTimeTravel(impl, o.TimeTravel)
	apply := func(a model.Action) model.Result {
		or.Before(impl, impl.Snapshot, a)
		script = append(script, a)
		r := impl.Step(a)
		if errors.Is(r.Err, model.ErrNotEnabled) {
			fail(r.Err)
		}
		s := impl.Snapshot()
		if err := chk.Check(s, r.Writes); err != nil {
			fail(err)
		}
		if err := check(s); err != nil {
			fail(err)
		}
		if errs := impl.Errors(); len(errs) > 0 {
			fail(fmt.Errorf("impl errors: %v", errs))
		}
		if err := or.After(impl, s, a, r.Writes); err != nil {
			fail(err)
		}
		return r
	}
	t.Repeat(map[string]func(*rapid.T){
		"action": func(t *rapid.T) {
			if o.Settle && DrawSettle(t) {
				Settle(t, impl, o.Faults, apply)
				return
			}
			if !o.Settle {
				a, ok := DrawAction(t, src, o.Faults)
				if !ok {
					t.Skip("nothing enabled")
				}
				apply(a)
				return
			}
			a := DrawImplAction(t, src, o.Faults)
			apply(a)
			if gracePeriodAfter(a) {
				GracePeriod(impl, apply)
			}
		},
	})
	for _, a := range impl.Recovery() {
		apply(a)
	}
	if len(impl.Objects(model.KindNode)) == 0 {
		apply(model.Action{Op: model.OpAddNode, Who: NodeNames[0]})
	}
	quiesce := len(script)
	for i := 0; ; i++ {
		a, ok := impl.NextQuiesceStep()
		if !ok {
			break
		}
		if i > MaxQuiesceSteps {
			t.Fatalf("%v\n%s", endlessQuiesce(impl, script[quiesce:]), shortScript(script, quiesce))
		}
		apply(a)
	}
	s := impl.Snapshot()
	if err := model.Converged(s); err != nil {
		fail(err)
	}
	if o.Converged != nil {
		if err := o.Converged(s); err != nil {
			fail(err)
		}
	}
	if err := or.End(impl, s, func(a model.Action) (model.Result, error) { return apply(a), nil }); err != nil {
		fail(err)
	}
}

// gracePeriodAfter: the user's delete leaves pods terminating for a while,
// in which the control plane goes on: a pod's delete, a namespace's (its
// pods), a foreground delete of a Deployment (its ReplicaSets' pods, while
// the ReplicaSets wait for them).
func gracePeriodAfter(a model.Action) bool {
	if a.Op != model.OpDelete {
		return false
	}
	return a.Kind == model.KindPod || a.Kind == model.KindNamespace ||
		(a.Kind == model.KindDeployment && a.Policy == model.PropagateForeground)
}
