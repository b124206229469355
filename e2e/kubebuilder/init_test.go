package kubebuilder

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// kubebuilderVersion is the kubebuilder the scaffold comes from.
const kubebuilderVersion = "v4.16.0"

// checkout is this repository's root, which the scaffold's go.mod
// replaces github.com/converge-dev/converge with.
var checkout, _ = filepath.Abs("../..")

func TestConvergeInitOnAKubebuilderScaffold(t *testing.T) {
	tmp := t.TempDir()
	bin := filepath.Join(tmp, "bin")
	project := filepath.Join(tmp, "guestbook")
	if err := os.MkdirAll(project, 0o755); err != nil {
		t.Fatal(err)
	}
	// kubebuilder and converge land in bin, first on PATH (exec looks
	// commands up in this process's PATH).
	t.Setenv("GOBIN", bin)
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	env := os.Environ()

	step(t, env, tmp, "go", "install", "sigs.k8s.io/kubebuilder/v4@"+kubebuilderVersion)
	step(t, env, checkout, "go", "build", "-o", filepath.Join(bin, "converge"), "./cmd/converge")

	step(t, env, project, "kubebuilder", "init", "--domain", "example.com", "--repo", "example.com/guestbook")
	step(t, env, project, "kubebuilder", "create", "api", "--group", "webapp", "--version", "v1", "--kind", "Guestbook", "--resource", "--controller")
	write(t, filepath.Join(project, "api/v1/guestbook_types.go"), guestbookTypes)
	write(t, filepath.Join(project, "internal/controller/guestbook_controller.go"), guestbookController)
	step(t, env, project, "make", "generate", "manifests")

	out := step(t, env, project, "converge", "init")
	for _, want := range []string{"wrote internal/controller/converge_test.go", "GuestbookReconciler", "go test ./internal/controller -run TestConverge"} {
		if !strings.Contains(out, want) {
			t.Errorf("converge init's output lacks %q:\n%s", want, out)
		}
	}
	generated, err := os.ReadFile(filepath.Join(project, "internal/controller/converge_test.go"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`webappv1 "example.com/guestbook/api/v1"`, `crdgen.WithField("spec.image", convergeImages)`, "(&GuestbookReconciler{Client: mgr.GetClient(), Scheme: mgr.GetScheme()})"} {
		if !strings.Contains(string(generated), want) {
			t.Errorf("converge_test.go lacks %q:\n%s", want, generated)
		}
	}
	if out, code := run(env, project, "converge", "init"); code != 2 || !strings.Contains(out, "--force") {
		t.Errorf("converge init over its own file: exit %d, %q; want exit 2 naming --force", code, out)
	}

	// The scaffold's own controller-runtime and Kubernetes modules move to
	// converge's (the replace and go mod tidy), as they would for a user.
	step(t, env, project, "go", "mod", "edit", "-replace", "github.com/converge-dev/converge="+checkout,
		"-require", "github.com/converge-dev/converge@v0.0.0-00010101000000-000000000000")
	step(t, env, project, "go", "mod", "tidy")
	t.Logf("the scaffold's modules after go mod tidy:\n%s", step(t, env, project, "go", "list", "-m", "sigs.k8s.io/controller-runtime", "k8s.io/client-go", "pgregory.net/rapid"))
	out = step(t, env, project, "go", "test", "-count=1", "./internal/controller", "-run", "TestConverge", "-rapid.checks=20", "-v")
	t.Logf("go test of the generated test:\n%s", lastLines(out, 5))
	if !strings.Contains(out, "--- PASS: TestConverge") {
		t.Errorf("go test of the generated test did not pass TestConverge:\n%s", out)
	}
}

// step runs one command and fails the test, with its output, if it fails.
func step(t *testing.T, env []string, dir, name string, args ...string) string {
	t.Helper()
	start := time.Now()
	out, code := run(env, dir, name, args...)
	t.Logf("%s %s: exit %d in %s", name, strings.Join(args, " "), code, time.Since(start).Round(time.Second))
	if code != 0 {
		t.Fatalf("%s %s: exit %d\n%s", name, strings.Join(args, " "), code, out)
	}
	return out
}

func run(env []string, dir, name string, args ...string) (string, int) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir, cmd.Env = dir, env
	var b bytes.Buffer
	cmd.Stdout, cmd.Stderr = &b, &b
	err := cmd.Run()
	if err != nil && cmd.ProcessState == nil {
		return err.Error(), -1
	}
	return b.String(), cmd.ProcessState.ExitCode()
}

func write(t *testing.T, path, src string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
