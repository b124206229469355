package broker_test

import (
	"testing"

	"github.com/converge-dev/converge/examples/foreign/probetest"
	"github.com/converge-dev/converge/properties"
)

// The correct reconciler passes at the README's defaults (every field
// drawn from the schema, the image too: one the kubelet cannot parse
// waits in InvalidImageName, one the apiserver refuses is reported in
// the status), and with the world's faults on (fewer checks: a check
// takes longer).
func TestBrokerFreeForm(t *testing.T) { probetest.Check(t, freeFormOp()) }

func TestBrokerWorldFaults(t *testing.T) {
	o := op()
	o.WorldFaults = true
	defer properties.SetRapidFlags(t, map[string]string{"rapid.checks": "30"})()
	probetest.Check(t, o)
}

func TestBrokerFreeFormWorldFaults(t *testing.T) {
	o := freeFormOp()
	o.WorldFaults = true
	defer properties.SetRapidFlags(t, map[string]string{"rapid.checks": "30"})()
	probetest.Check(t, o)
}
