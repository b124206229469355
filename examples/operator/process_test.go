package operator_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/converge-dev/converge/properties"
	"github.com/converge-dev/converge/properties/crdgen"
)

// buildManager builds cmd/ as its own binary.
func buildManager(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "manager")
	out, err := exec.Command("go", "build", "-o", bin, "./cmd").CombinedOutput()
	if err != nil {
		t.Fatalf("go build ./cmd: %v\n%s", err, out)
	}
	return bin
}

// TestWebAppAsAProcess checks the manager as its own process, through
// the apiserver over loopback HTTPS.
func TestWebAppAsAProcess(t *testing.T) {
	bin := buildManager(t)
	start := time.Now()
	properties.CheckProcess(t, properties.Process{
		Command: []string{bin, "--health-probe-bind-address=0", "--bug=" + os.Getenv("BUG")},
		CRDs:    "config/crd/bases",
		Fields:  map[string][]crdgen.Option{"webapps": {crdgen.WithField("spec.image", images)}},
	})
	t.Logf("in %v", time.Since(start))
}
