package mutants_test

import (
	"flag"
	"strconv"
	"testing"

	"github.com/converge-dev/converge/properties"
	"github.com/converge-dev/converge/properties/mutants"
)

// controlChecks is the checks per control in `make test`; the false-alarm
// run of issue 22 is -mutants.controlchecks=10000.
var controlChecks = flag.Int("mutants.controlchecks", 200, "checks per control of TestControlsRaiseNoFalseAlarm")

// TestControlsRaiseNoFalseAlarm runs CheckController, with faults and its
// default interleavings, over each correct controller that uses an idiom a
// naive harness flags: a periodic resync, a delete without a precondition,
// a name reused after its pod is gone.
func TestControlsRaiseNoFalseAlarm(t *testing.T) {
	for _, c := range mutants.Controls {
		t.Run(c.Name, func(t *testing.T) {
			defer properties.SetRapidFlags(t, map[string]string{"rapid.checks": strconv.Itoa(*controlChecks), "rapid.seed": "1"})()
			o := properties.ImplOptions{Faults: true}
			if c.TimeTravel {
				o.TimeTravel = []string{c.Spec.Name}
			}
			properties.CheckController(t, c.Spec, o)
		})
	}
}

func TestTheControlsAreComplete(t *testing.T) {
	if len(mutants.Controls) < 3 {
		t.Fatalf("%d controls, want the three of issue 22", len(mutants.Controls))
	}
	for _, c := range mutants.Controls {
		if c.Name == "" || c.Idiom == "" || c.Spec.New == nil || c.Spec.Name == "" {
			t.Errorf("incomplete control %+v", c)
		}
	}
}
