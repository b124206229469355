package operator_test

import (
	"testing"

	"pgregory.net/rapid"

	"github.com/converge-dev/converge/properties"
	"github.com/converge-dev/converge/properties/crdgen"
)

// TestWebAppWithImagesTheAPIServerRefuses: the operator as it ships, with
// images a user may mistype (" nginx:1" is invalid in a Deployment for
// its leading space, though the WebApp's schema allows it). The
// apiserver refuses the Deployment the operator copies it into: the
// user's bad input, noted on the step ("input refused"), and no failure.
func TestWebAppWithImagesTheAPIServerRefuses(t *testing.T) {
	op := webApp()
	mistyped := []string{" " + properties.ImageNames[0], properties.ImageNames[1] + " "}
	op.Fields = map[string][]crdgen.Option{"webapps": {crdgen.WithField("spec.image",
		rapid.Map(rapid.SampledFrom(append(mistyped, properties.ImageNames...)), func(s string) any { return s }))}}
	properties.CheckOperator(t, op)
}
