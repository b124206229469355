package properties

import (
	"testing"

	"pgregory.net/rapid"

	"github.com/converge-dev/converge/model"
)

// TestModelPropertyWithOraclesPasses runs the model property, faults on,
// with every oracle: the correct model must raise no alarm. The README's
// false-alarm figure is this test at -rapid.checks=10000.
func TestModelPropertyWithOraclesPasses(t *testing.T) {
	defer defaultChecks(t, 200)()
	rapid.Check(t, func(rt *rapid.T) { Model(rt, model.Config{}) })
}
