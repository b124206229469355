package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// seedManifest is the repository's examples/my-app.yaml.
var seedManifest = filepath.Join("..", "..", "examples", "my-app.yaml")

func TestDemoOnEtcdConverges(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := run([]string{"demo", "-f", seedManifest, "--timeout", "60s"}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s\n%s", code, errOut.String(), out.String())
	}
	for _, want := range []string{"CREATE replicasets/default/myapp-", "BIND pods/default/myapp-", "RUNTIME-START containers/node-", "== converged"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("demo output lacks %q:\n%s", want, out.String())
		}
	}
	checkBindBeforeRun(t, out.String())
}

func TestDemoModelWalksTheSeedOrder(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := run([]string{"demo", "--model", "-f", seedManifest}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	s := out.String()
	order := []string{"CREATE deployments/default/myapp", "CREATE replicasets/default/myapp-", "CREATE pods/default/myapp-", "BIND pods/default/myapp-", "RUNTIME-START", "== converged"}
	last := -1
	for _, w := range order {
		i := strings.Index(s, w)
		if i <= last {
			t.Fatalf("%q is out of the seed order in:\n%s", w, s)
		}
		last = i
	}
}

func TestDemoRejectsBadInput(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	if err := os.WriteFile(bad, []byte("kind: Deployment\napiVersion: apps/v1\nmetadata: {name: x}\nspec: {replicas: -1}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"demo", "--nodes", "0"}, {"demo", "-f", "/no/such/file"}, {"demo", "-f", bad}} {
		var out, errOut bytes.Buffer
		if code := run(args, &out, &errOut); code != 2 {
			t.Errorf("%v: exit %d, want 2 (%s)", args, code, errOut.String())
		}
		if strings.Count(strings.TrimSpace(errOut.String()), "\n") != 0 {
			t.Errorf("%v: want one line of error, got %q", args, errOut.String())
		}
	}
}

// TestDemoStatefulSetStartsInOrder: --workload statefulset shows
// OrderedReady's start on the real control plane and in the model: each
// ordinal's claim and pod are made only once the ordinal before it runs,
// and the claim comes no later than its pod.
func TestDemoStatefulSetStartsInOrder(t *testing.T) {
	t.Chdir(filepath.Join("..", "..")) // the seed manifests' paths are the repository's, as make demo runs them
	for _, args := range [][]string{{"demo", "--workload", "statefulset", "--timeout", "60s"}, {"demo", "--model", "--workload", "statefulset"}} {
		var out, errOut bytes.Buffer
		if code := run(args, &out, &errOut); code != 0 {
			t.Fatalf("%v: exit %d: %s\n%s", args, code, errOut.String(), out.String())
		}
		s := out.String()
		last := -1
		for _, w := range []string{
			"CREATE persistentvolumeclaims/default/data-web-0", "CREATE pods/default/web-0", "/default/web-0/0",
			"CREATE persistentvolumeclaims/default/data-web-1", "CREATE pods/default/web-1", "/default/web-1/0",
			"CREATE persistentvolumeclaims/default/data-web-2", "CREATE pods/default/web-2", "== converged",
		} {
			i := strings.Index(s, w)
			if i < last {
				t.Fatalf("%v: %q is out of OrderedReady's order in:\n%s", args, w, s)
			}
			last = i
		}
	}
}
