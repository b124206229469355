package broker_test

import (
	"strings"
	"testing"

	"github.com/converge-dev/converge/examples/foreign/broker"
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
// differential's reference, which never settles the write before the
// pause, has none, and the check passes: an object only partial
// reconciles made is no difference (`ConfigMap default/b-config only in
// this run` without that rule).
func TestBrokerPausedAfterAPartialReconcile(t *testing.T) {
	defer properties.SetRapidFlags(t, map[string]string{"rapid.seed": "2", "rapid.checks": "60"})()
	properties.CheckOperator(t, op())
}

// TestBrokerGeneratedNameLeakAfterACrashIsCaught is the teeth of the
// partial-reconcile rule: a ConfigMap made with generateName, whose name a
// crash keeps from the status, is made again by the retry. The retry
// settles the write, so both copies are compared, and the second is
// reported as only in this run.
func TestBrokerGeneratedNameLeakAfterACrashIsCaught(t *testing.T) {
	broker.BugGeneratedConfigName = true
	defer func() { broker.BugGeneratedConfigName = false }()
	defer properties.SetRapidFlags(t, map[string]string{"rapid.seed": "1", "rapid.checks": "150",
		"rapid.nofailfile": "true", "rapid.shrinktime": "5s"})()
	h := properties.Hunt(t, op())
	if !h.Failed {
		t.Fatalf("the leak passed %d checks", h.Checks)
	}
	if text := h.Report.Text(); !strings.Contains(text, "-config-* #2 only in this run") {
		t.Fatalf("the leak failed, but not as a second ConfigMap:\n%s", text)
	}
}
