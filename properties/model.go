package properties

import (
	"fmt"
	"strings"

	"pgregory.net/rapid"

	"github.com/converge-dev/converge/model"
)

// MaxQuiesceSteps bounds Quiesce in every property.
const MaxQuiesceSteps = 5000

// Script is the actions of a run so far, printable as a replayable script.
type Script []model.Action

func (s Script) String() string {
	lines := make([]string, len(s))
	for i, a := range s {
		lines[i] = a.String()
	}
	return fmt.Sprintf("script (%d actions):\n  %s", len(s), strings.Join(lines, "\n  "))
}

// Model is the model property: random interleavings of user actions,
// component steps and faults with the invariants after every step, then
// recovery, Quiesce and Converged. A failure prints the script and saves it
// as a trace (FailureTraceEnv).
func Model(t *rapid.T, cfg model.Config) { modelProperty(t, cfg, true) }
