package properties_test

import (
	"testing"

	"github.com/converge-dev/converge/examples/replicaset"
	"github.com/converge-dev/converge/properties"
)

// A controller written against converge's own client and caches
// (properties.ControllerSpec, here examples/replicaset's) replaces the
// built-in component of its name; the property runs with faults. In a
// test package, also add `func TestMain(m *testing.M) { properties.Main(m) }`.
func ExampleCheckController() {
	_ = func(t *testing.T) { // a test function, as it would appear in a _test.go file
		properties.CheckController(t, replicaset.Spec(), properties.ImplOptions{Faults: true})
	}
}
