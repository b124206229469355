package main

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// webAppCRDs are examples/operator's CRDs.
const webAppCRDs = "../../examples/operator/config/crd/bases"

// buildWebApp builds examples/operator's manager as its own binary.
func buildWebApp(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "manager")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd")
	cmd.Dir = "../../examples/operator"
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build examples/operator/cmd: %v\n%s", err, out)
	}
	return bin
}

// checkWebApp runs converge check operator on the manager with args
// after its own, on a pinned seed.
func checkWebApp(t *testing.T, bin string, checks string, manager ...string) (string, int) {
	t.Helper()
	args := []string{"check", "operator", "--crds", webAppCRDs, "--checks", checks, "--steps", "6", "--seed", "7",
		"--shrink-time", "3s", "--work-dir", t.TempDir(),
		"--field", "webapps:spec.image=nginx:1.25,nginx:1.26,busybox:1.36", "--", bin, "--health-probe-bind-address=0"}
	out, errs, code := runConverge(append(args, manager...)...)
	return out + errs, code
}

// TestCheckOperatorCatchesASeededBug: examples/operator's manager, built
// as its own binary and checked by converge check operator through the
// apiserver over loopback HTTPS, passes as shipped; with its seeded bug
// no-owner-reference (its Service has no controller reference) it fails,
// caught as the Services left behind once every WebApp is deleted, and
// the report keeps the operator's log.
func TestCheckOperatorCatchesASeededBug(t *testing.T) {
	bin := buildWebApp(t)
	out, code := checkWebApp(t, bin, "2")
	if code != 0 || !strings.Contains(out, "ok: 2 checks passed") {
		t.Fatalf("the correct operator: exit %d:\n%s", code, out)
	}
	out, code = checkWebApp(t, bin, "2", "--bug=no-owner-reference")
	if code != 1 {
		t.Fatalf("the no-owner-reference mutant: exit %d, want 1:\n%s", code, out)
	}
	for _, want := range []string{"left behind once every custom resource was deleted", "services/default/", "operator log: ", "user create webapps/default/"} {
		if !strings.Contains(out, want) {
			t.Errorf("the report lacks %q:\n%s", want, out)
		}
	}
}

// TestCheckOperatorRefusesBadInput: one line and exit 2.
func TestCheckOperatorRefusesBadInput(t *testing.T) {
	for _, args := range [][]string{
		{"check", "operator", "--", "true"},
		{"check", "operator", "--crds", webAppCRDs},
		{"check", "operator", "--crds", "no-such-dir", "--", "true"},
		{"check", "operator", "--crds", webAppCRDs, "--field", "webapps", "--", "true"},
	} {
		_, errs, code := runConverge(args...)
		if code != 2 || strings.Count(strings.TrimSpace(errs), "\n") > 0 && !strings.Contains(errs, "Usage:") {
			t.Errorf("converge %s: exit %d, want 2 and one line: %q", strings.Join(args, " "), code, errs)
		}
	}
}
