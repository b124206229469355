package mutants_test

import (
	"flag"
	"strconv"
	"testing"

	"github.com/converge-dev/converge/properties"
	"github.com/converge-dev/converge/properties/mutants"
)

var controlChecks = flag.Int("mutants.control-checks", 25, "checks per control of TestControlsRaiseNoFalseAlarm")

// TestControlsRaiseNoFalseAlarm checks the correct twins of the mutants
// with CheckController's defaults: the oracles that catch the mutants must
// stay silent on them. The README's false-alarm figures are this test at
// -mutants.control-checks=10000.
func TestControlsRaiseNoFalseAlarm(t *testing.T) {
	if len(mutants.Controls) == 0 {
		t.Fatal("no controls")
	}
	for _, c := range mutants.Controls {
		t.Run(c.Name, func(t *testing.T) {
			defer setFlags(t, map[string]string{"rapid.checks": strconv.Itoa(*controlChecks), "rapid.seed": "1", "rapid.steps": "30"})()
			properties.CheckController(t, c.Spec, properties.ImplOptions{Faults: true})
		})
	}
}
