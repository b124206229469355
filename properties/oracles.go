package properties

import "github.com/converge-dev/converge/model"

// Oracles runs the oracles of issue 22 beside the invariants, on whichever
// cluster a property drives (the model, the stepped implementation, the
// model side of a lockstep pair): the user-intent oracle and caught-up
// consistency after every step, availability around every reconcile of
// the deployment controller, and, at the end, intent, leaks, the
// differential run and the fixed point.
type Oracles struct {
	Intents *Intents
	avail   Availability
}

// NewOracles starts the oracles of one run.
func NewOracles() *Oracles { return &Oracles{Intents: NewIntents()} }

// Before is called before a is applied; snap is taken only when needed.
func (o *Oracles) Before(c Observed, snap func() *model.Snapshot, a model.Action) {
	if a.Op == model.OpReconcile && a.Who == model.DeploymentController {
		o.avail.Before(c, snap(), a)
		return
	}
	o.avail.before = nil
}

// After checks one applied action, with s the state after it.
func (o *Oracles) After(c Observed, s *model.Snapshot, a model.Action, writes []model.Write) error {
	if err := o.Intents.Observe(a, writes); err != nil {
		return err
	}
	if err := o.avail.After(s); err != nil {
		return err
	}
	return CaughtUp(c, s)
}

// End checks a converged end state s, then drives c through a resync at
// the fixed point with apply.
func (o *Oracles) End(c Quiescer, s *model.Snapshot, apply func(model.Action) (model.Result, error)) error {
	if err := o.Intents.Converged(s); err != nil {
		return err
	}
	if err := o.Intents.Leaks(s); err != nil {
		return err
	}
	if err := o.Intents.Differential(s); err != nil {
		return err
	}
	return FixedPoint(c, apply)
}
