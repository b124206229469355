package main

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/converge-dev/converge/properties"
)

func TestMain(m *testing.M) { properties.Main(m) }

// build builds the operator as its own binary.
func build(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "informer")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// check runs the process check on the operator with args, on a pinned
// seed, and reports to tb.
func check(tb rapid.TB, t *testing.T, bin string, args ...string) {
	defer properties.SetRapidFlags(t, map[string]string{"rapid.checks": "2", "rapid.steps": "6", "rapid.seed": "5",
		"rapid.shrinktime": "3s", "rapid.nofailfile": "true"})()
	properties.CheckProcessTB(tb, t, properties.Process{Command: append([]string{bin}, args...),
		CRDs: "config/crd/bases", WorkDir: t.TempDir()})
}

// TestInformerOperator: the operator, with no controller-runtime in it,
// passes the process check: it is started with a kubeconfig of its own,
// driven through converge's apiserver over loopback HTTPS, crashed and
// restarted, and its requests failed.
func TestInformerOperator(t *testing.T) {
	check(t, t, build(t))
}

// TestInformerOperatorSeededBugIsCaught: with no-owner-reference, its
// ConfigMaps outlive their Greetings, and the check finds them left
// behind once every Greeting is deleted.
func TestInformerOperatorSeededBugIsCaught(t *testing.T) {
	rep := properties.NewReport(t.Name())
	check(rep, t, build(t), "--bug=no-owner-reference")
	if !rep.Failed() {
		t.Fatal("the no-owner-reference bug passed the check")
	}
	for _, want := range []string{"left behind once every custom resource was deleted", "configmaps/default/", "-greeting"} {
		if !strings.Contains(rep.Text(), want) {
			t.Errorf("the report lacks %q:\n%s", want, rep.Text())
		}
	}
}
