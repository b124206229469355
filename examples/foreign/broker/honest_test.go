package broker_test

import (
	"testing"

	"github.com/converge-dev/converge/examples/foreign/probetest"
)

// The correct reconciler passes at the README's defaults (every field
// drawn from the schema, the image too), and with the world's faults on.
func TestBrokerFreeForm(t *testing.T) { probetest.Check(t, freeFormOp()) }

func TestBrokerWorldFaults(t *testing.T) {
	o := op()
	o.WorldFaults = true
	probetest.Check(t, o)
}

func TestBrokerFreeFormWorldFaults(t *testing.T) {
	o := freeFormOp()
	o.WorldFaults = true
	probetest.Check(t, o)
}
