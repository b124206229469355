package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestUpInstallsCRDs: `converge up --crds DIR` installs the CRDs of a
// kubebuilder-style directory before it serves, so a custom resource can
// be applied at once; after a restart on the same data dir the resource
// is served again, from the stored CRD.
func TestUpInstallsCRDs(t *testing.T) {
	needKubectl(t)
	bases := filepath.Join(t.TempDir(), "config", "crd", "bases")
	if err := os.MkdirAll(bases, 0o755); err != nil {
		t.Fatal(err)
	}
	crd, err := os.ReadFile("../../examples/crd/widget-crd.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string][]byte{
		"example.com_widgets.yaml": crd,
		"kustomization.yaml":       []byte("resources:\n- example.com_widgets.yaml\n"),
	} {
		if err := os.WriteFile(filepath.Join(bases, name), body, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	dir := t.TempDir()
	f := upFlags{dataDir: dir, listen: "127.0.0.1:0", nodes: 1, tick: 200 * time.Millisecond, quiet: true, crds: bases}
	kc, stop := startUpWith(t, f)
	if out := kubectl(t, kc, "apply", "-f", "examples/crd/widget.yaml"); !strings.Contains(out, "widget.example.com/hello created") {
		t.Fatalf("apply: %s", out)
	}
	stop()

	f.crds = ""
	kc, stop = startUpWith(t, f)
	defer stop()
	var out string
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if out = kubectl(t, kc, "get", "widgets", "-o", "name", "--ignore-not-found"); strings.Contains(out, "widget.example.com/hello") {
			return
		}
	}
	t.Fatalf("after a restart: %q", out)
}

// TestUpRefusesABadCRDDirectory: one line and a failure, nothing served.
func TestUpRefusesABadCRDDirectory(t *testing.T) {
	bases := t.TempDir()
	if err := os.WriteFile(filepath.Join(bases, "app.yaml"), []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ dir, want string }{
		{bases, "a ConfigMap is not a CustomResourceDefinition"},
		{filepath.Join(bases, "missing"), "no such file or directory"},
		{t.TempDir(), "holds no manifests"},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		err := up(ctx, upFlags{dataDir: t.TempDir(), listen: "127.0.0.1:0", nodes: 1, tick: time.Second, quiet: true, crds: c.dir}, os.Stderr)
		cancel()
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "--crds: ") {
			t.Errorf("--crds %s: %v, want an error containing %q", c.dir, err, c.want)
		}
	}
}
