package broker_test

import (
	"testing"

	"github.com/converge-dev/converge/examples/foreign/probetest"
	"github.com/converge-dev/converge/properties"
)

// The correct reconciler passes at the README's defaults (every field
// drawn from the schema, the image too: one the kubelet cannot parse
// waits in InvalidImageName, one the apiserver refuses is reported in
// the status; the world's faults on), and with the world's faults off.
func TestBrokerFreeForm(t *testing.T) { probetest.Check(t, freeFormOp()) }

func TestBrokerNoWorldFaults(t *testing.T) {
	o := op()
	o.NoWorldFaults = true
	defer properties.SetRapidFlags(t, map[string]string{"rapid.checks": "30"})()
	probetest.Check(t, o)
}
