package properties

import (
	"pgregory.net/rapid"

	"github.com/converge-dev/converge/impl/cluster"
	"github.com/converge-dev/converge/model"
)

// Lockstep is the model-vs-implementation property: each step draws one
// action from the model's enabled set and applies it to both; after every
// step the results, the enabled steps and the projected states must be
// equal and the invariants hold on both (Pair.Step). Once faults stop, both
// quiesce on the model's fair schedule and must converge (Pair.Finish).
func Lockstep(t *rapid.T, impl *cluster.Stepped, faults bool) {
	LockstepConfig(t, impl, faults, model.Config{})
}
