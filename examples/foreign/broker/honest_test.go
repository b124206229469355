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

// TestBrokerPausedAfterAPartialReconcile: seed 2 draws a reconcile that
// makes b-config and crashes before the Deployment, a retry that fails,
// then a pause. The correct reconciler keeps b-config while paused; the
// differential's reference, which never settled the write before the
// pause, has none, and reported it (`ConfigMap default/b-config only in
// this run`) until partial reconciles were told apart.
func TestBrokerPausedAfterAPartialReconcile(t *testing.T) {
	defer properties.SetRapidFlags(t, map[string]string{"rapid.seed": "2", "rapid.checks": "60"})()
	properties.CheckOperator(t, op())
}
