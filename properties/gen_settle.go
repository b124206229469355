package properties

import (
	"pgregory.net/rapid"

	"github.com/converge-dev/converge/model"
)

// SettleOdds is how rarely the implementation property draws a settle
// instead of one action: one draw in SettleOdds.
const SettleOdds = 8

// MaxSettleSteps bounds one settle: a fault still in force (a held
// component, a partitioned node) can keep the cluster busy.
const MaxSettleSteps = 500

// DrawSettle draws whether the next drawn action is a settle. Uniform
// draws of single steps rarely finish what they start: a rollout with
// ready old pods needs dozens of component steps in the right order before
// the next user action, which rapid's 30 steps almost never give. A settle
// finishes what is under way, so a few drawn actions (apply, settle, set
// image, settle) make a whole rolling update, and shrinking keeps them few.
func DrawSettle(t *rapid.T) bool {
	return rapid.IntRange(0, SettleOdds-1).Draw(t, "settle?") == 0
}

// Settle runs the fair quiesce schedule from where the cluster is, with
// whatever faults are in force, for at most MaxSettleSteps steps: every
// step goes through apply, so the script records it and the checks see it.
func Settle(c interface {
	NextQuiesceStep() (model.Action, bool)
}, apply func(model.Action)) {
	for range MaxSettleSteps {
		a, ok := c.NextQuiesceStep()
		if !ok {
			return
		}
		apply(a)
	}
}
