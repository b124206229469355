package replicaset_test

import (
	"testing"

	"github.com/converge-dev/converge/examples/replicaset"
	"github.com/converge-dev/converge/properties"
)

func TestMain(m *testing.M) { properties.Main(m) }

// TestReplicaSetsPassTheProperty runs the implementation-only property with
// faults; `make check-controllers` runs it with -rapid.checks=1000.
func TestReplicaSetsPassTheProperty(t *testing.T) {
	properties.CheckController(t, replicaset.Spec(), properties.ImplOptions{Faults: true})
}
