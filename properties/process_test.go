package properties

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// buildFake builds testdata/fakeoperator.
func buildFake(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "fakeoperator")
	if out, err := exec.Command("go", "build", "-o", bin, "./testdata/fakeoperator").CombinedOutput(); err != nil {
		t.Fatalf("go build ./testdata/fakeoperator: %v\n%s", err, out)
	}
	return bin
}

// checkFake runs CheckProcess on the fake operator in mode, on a pinned
// seed, and returns what the check reported; it must have failed.
func checkFake(t *testing.T, mode string) string {
	t.Helper()
	bin := buildFake(t)
	defer SetRapidFlags(t, map[string]string{"rapid.checks": "3", "rapid.steps": "4", "rapid.seed": "3",
		"rapid.shrinktime": "1s", "rapid.nofailfile": "true"})()
	rep := NewReport(t.Name())
	CheckProcessTB(rep, t, Process{Command: []string{bin, "-mode", mode},
		CRDs: "../examples/operator/config/crd/bases", NoFaults: true, Settle: 10 * time.Second, WorkDir: t.TempDir()})
	if !rep.Failed() {
		t.Fatalf("the %s operator passed the check", mode)
	}
	text := rep.Text()
	if !strings.Contains(text, "operator log: ") {
		t.Errorf("the report names no log:\n%s", text)
	}
	return text
}

// The teeth of the process check's oracles, each on an operator with one
// bug: one that rewrites its own object twice a second (churn at the
// fixed point), one whose finalizer never goes (stuck finalizers), one
// that exits.
func TestProcessCheckCatchesChurn(t *testing.T) {
	if text := checkFake(t, "churn"); !strings.Contains(text, "no fixed point") || !strings.Contains(text, "update configmaps default/churn") {
		t.Fatalf("churn not caught as such:\n%s", text)
	}
}

func TestProcessCheckCatchesStuckFinalizers(t *testing.T) {
	if text := checkFake(t, "finalizer"); !strings.Contains(text, "finalizers") || !strings.Contains(text, "fake/never") {
		t.Fatalf("a stuck finalizer not caught as such:\n%s", text)
	}
}

func TestProcessCheckCatchesAnOperatorThatExits(t *testing.T) {
	if text := checkFake(t, "exit"); !strings.Contains(text, "the operator exited on its own: exit status 3") {
		t.Fatalf("the exit not caught as such:\n%s", text)
	}
}
