package properties

import (
	"fmt"

	"github.com/converge-dev/converge/model"
)

// Quiescer is a cluster the end-of-run oracles can drive further.
type Quiescer interface {
	Observed
	NextQuiesceStep() (model.Action, bool)
}

// FixedPoint is the fixed-point oracle, run after quiescence: every
// component's watch is dropped, so it relists and queues every key, as a
// periodic resync does, and the cluster quiesces again. A correct
// controller at a fixed point has nothing to write; one that writes anyway
// (it flips a field back and forth, stamps a timestamp, rewrites a stale
// copy) fights itself or another writer in a real cluster. apply runs one
// action with the property's own checks and returns its result.
func FixedPoint(c Quiescer, apply func(model.Action) (model.Result, error)) error {
	drops := map[string]bool{}
	for _, a := range c.EnabledFaults() {
		if a.Op == model.OpDropWatch {
			drops[a.Who] = true
		}
	}
	for _, n := range c.Components() {
		if !drops[n] {
			continue
		}
		if _, err := apply(model.Action{Op: model.OpDropWatch, Who: n}); err != nil {
			return err
		}
	}
	for i := 0; ; i++ {
		a, ok := c.NextQuiesceStep()
		if !ok {
			return nil
		}
		if i > MaxQuiesceSteps {
			return fmt.Errorf("resync at the fixed point did not finish in %d steps", MaxQuiesceSteps)
		}
		r, err := apply(a)
		if err != nil {
			return err
		}
		for _, w := range r.Writes {
			if w.Err == nil {
				return violationf("a resync at the fixed point writes nothing", "%s after every component relisted", w)
			}
		}
	}
}
