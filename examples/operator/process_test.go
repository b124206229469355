package operator_test

import (
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/converge-dev/converge/properties"
	"github.com/converge-dev/converge/properties/crdgen"
)

// TestWebAppAsAProcess checks the manager as its own process: built with
// go build, started with a kubeconfig of its own, and driven through
// converge's apiserver over loopback HTTPS. Each check costs seconds
// (the operator's startup, a quiet period per step), so this one runs
// two; converge check operator runs more (cmd/converge's tests run it
// with a seeded bug too).
func TestWebAppAsAProcess(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "manager")
	if out, err := exec.Command("go", "build", "-o", bin, "./cmd").CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd: %v\n%s", err, out)
	}
	defer properties.SetRapidFlags(t, map[string]string{"rapid.checks": "2", "rapid.steps": "6"})()
	properties.CheckProcess(t, properties.Process{
		Command: []string{bin, "--health-probe-bind-address=0"},
		CRDs:    "config/crd/bases",
		Fields:  map[string][]crdgen.Option{"webapps": {crdgen.WithField("spec.image", images)}},
	})
}
