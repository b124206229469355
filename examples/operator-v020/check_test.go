// Package converge here is a module of its own: examples/operator's
// manager (its api, internal and cmd directories, linked in) built against
// controller-runtime v0.20 and k8s.io v0.32, older than converge's own.
// Its one test builds that manager and converge's CLI (from the
// checkout above) and runs converge check operator on it: the process
// check needs no converge code in the operator's module and no
// particular controller-runtime version.
package converge

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func build(t *testing.T, dir, pkg, out string) {
	t.Helper()
	cmd := exec.Command("go", "build", "-o", out, pkg)
	cmd.Dir = dir
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build %s in %s: %v\n%s", pkg, dir, err, b)
	}
}

func TestOlderControllerRuntimeOperatorPassesTheProcessCheck(t *testing.T) {
	tmp := t.TempDir()
	manager, converge := filepath.Join(tmp, "manager"), filepath.Join(tmp, "converge")
	build(t, ".", "./examples/operator/cmd", manager)
	build(t, "../..", "./cmd/converge", converge)
	out, err := exec.Command("go", "version", "-m", manager).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "sigs.k8s.io/controller-runtime\tv0.20.") {
		t.Fatalf("the manager is not built with controller-runtime v0.20: %v\n%s", err, out)
	}
	check := func(extra ...string) (string, error) {
		args := append([]string{"check", "operator", "--crds", "../operator/config/crd/bases", "--checks", "2", "--steps", "6",
			"--seed", "7", "--shrink-time", "3s", "--work-dir", t.TempDir(),
			"--field", "webapps:spec.image=nginx:1.25,nginx:1.26", "--", manager, "--health-probe-bind-address=0"}, extra...)
		b, err := exec.Command(converge, args...).CombinedOutput()
		return string(b), err
	}
	if out, err := check(); err != nil || !strings.Contains(out, "ok: 2 checks passed") {
		t.Fatalf("the manager as shipped: %v\n%s", err, out)
	}
	if out, err := check("--bug=no-owner-reference"); err == nil || !strings.Contains(out, "left behind once every custom resource was deleted") {
		t.Fatalf("the no-owner-reference mutant was not caught: %v\n%s", err, out)
	}
}
