package properties

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/converge-dev/converge/impl/operator"
	"github.com/converge-dev/converge/model"
)

// maxTimerRounds bounds how often the quiesce lets time pass: an operator
// that requeues itself forever still quiesces between its timers.
const maxTimerRounds = 20

// maxOperatorQuiesceSteps bounds the operator's deliveries and reconciles
// in one quiesce: one that takes more keeps waking itself up. A settled
// operator takes a few per object it owns.
const maxOperatorQuiesceSteps = 400

// maxOperatorQuiesceWrites bounds the operator's writes in one quiesce,
// which catches a loop of writes sooner.
const maxOperatorQuiesceWrites = 100

// end recovers from the faults, quiesces on events and the operator's own
// timers alone, and checks the end state: convergence, the user's
// Converged, status honesty, status counts and config at convergence, the differential,
// then the fixed point under a resync. The differential judges the state
// events left: the resync runs before it only when another writer's
// change still stands, to tell a missing watch (the events-alone
// oracle), and any write the resync makes ends the run.
func (r *operatorRun) end() {
	r.rt.Helper()
	r.ended = len(r.events)
	for _, a := range r.s.Recovery() {
		r.apply(a)
	}
	r.startReference()
	r.quiesce()
	snap := r.s.Snapshot()
	if err := cmp.Or(model.Converged(snap), nothingTerminating(snap)); err != nil {
		r.fail("not converged: %v", err) // one call: rapid shrinks a failure to one of the same place
	}
	if r.op.Converged != nil {
		if err := r.op.Converged(r.ctx, r.user); err != nil {
			r.fail("not converged: %v", err)
		}
	}
	r.statusAtConvergence()
	r.statusCountsAtConvergence()
	r.configAtConvergence()
	if standing := r.standing(); len(standing) > 0 {
		r.fixedPoint(standing)
		r.differential()
		r.destructiveHistory()
		return
	}
	r.differential()
	r.destructiveHistory()
	r.fixedPoint(nil)
}

// quiesce runs the operator and the control plane fairly until neither
// has anything to do: events first, then reconciles, then the control
// plane (whose garbage collector follows custom resources too), then the
// operator's timers.
func (r *operatorRun) quiesce() {
	r.rt.Helper()
	timers, operatorSteps, writes := 0, 0, r.host.Writes()
	for i := 0; ; i++ {
		if i > MaxQuiesceSteps {
			r.fail("quiesce did not finish in %d steps", MaxQuiesceSteps)
		}
		if r.operatorNext() {
			if operatorSteps++; operatorSteps > maxOperatorQuiesceSteps {
				r.fail("the operator never settles: %d of its steps in the quiesce, and it still has work (a write that triggers itself?)", maxOperatorQuiesceSteps)
			}
			if n := r.host.Writes() - writes; n > maxOperatorQuiesceWrites {
				r.fail("the operator never settles: %d writes in the quiesce, and it still has work (a write that triggers itself?)", n)
			}
			continue
		}
		if a, ok := r.s.NextQuiesceStep(); ok {
			r.apply(a)
			continue
		}
		if _, ok := r.host.NextTimer(); ok && timers < maxTimerRounds {
			timers++
			r.timers()
			continue
		}
		return
	}
}

// drain runs the operator alone until it has nothing to do.
func (r *operatorRun) drain() {
	for i := 0; r.operatorNext(); i++ {
		if i > MaxQuiesceSteps {
			r.fail("the operator did not settle in %d steps", MaxQuiesceSteps)
		}
	}
}

// operatorNext takes the operator's first pending step, if any.
func (r *operatorRun) operatorNext() bool {
	if parked := r.host.Parked(); len(parked) > 0 {
		r.proceed(parked[0])
		return true
	}
	if d := r.host.Deliverable(); len(d) > 0 {
		r.deliver(d[0])
		return true
	}
	if ready := r.host.Ready(); len(ready) > 0 {
		r.reconcile(ready[0], operator.NoFaults)
		return true
	}
	return false
}

// nothingTerminating: no object is still being deleted. model.Converged
// lets users' finalizers hold objects, but no user here adds one: a
// finalizer left once all is quiet is the operator's, never removed.
func nothingTerminating(snap *model.Snapshot) error {
	var stuck []string
	for ref, o := range snap.Objects {
		if m := model.MetaOf(o); m.Deleting {
			stuck = append(stuck, fmt.Sprintf("%s (finalizers %v)", ref, m.Finalizers))
		}
	}
	if len(stuck) == 0 {
		return nil
	}
	slices.Sort(stuck)
	if len(stuck) == 1 {
		return fmt.Errorf("%s is still terminating: nothing removes its finalizers", stuck[0])
	}
	return fmt.Errorf("%s are still terminating: nothing removes their finalizers", strings.Join(stuck, ", "))
}
