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
	crd, err := os.ReadFile("../../examples/crd/bases/example.com_widgets.yaml")
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

// TestCustomResourceOwnsADeployment: a Deployment whose controller is a
// custom resource (as an operator's SetControllerReference makes it) is
// rolled out like any other, and goes with its owner by each policy.
func TestCustomResourceOwnsADeployment(t *testing.T) {
	needKubectl(t)
	bases := t.TempDir()
	crd, err := os.ReadFile("../../examples/crd/bases/example.com_widgets.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bases, "widgets.yaml"), crd, 0o600); err != nil {
		t.Fatal(err)
	}
	kc, stop := startUpWith(t, upFlags{dataDir: t.TempDir(), listen: "127.0.0.1:0", nodes: 1, tick: 200 * time.Millisecond, quiet: true, crds: bases})
	defer stop()
	owned := func(widget string) string {
		w := "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: " + widget + "}\nspec: {image: nginx}\n"
		p := filepath.Join(t.TempDir(), widget+".yaml")
		if err := os.WriteFile(p, []byte(w), 0o600); err != nil {
			t.Fatal(err)
		}
		kubectl(t, kc, "apply", "-f", p)
		uid := kubectl(t, kc, "get", "widget", widget, "-o", "jsonpath={.metadata.uid}")
		d := strings.NewReplacer("WIDGET", widget, "UID", uid).Replace(`apiVersion: apps/v1
kind: Deployment
metadata:
  name: WIDGET-web
  ownerReferences:
  - {apiVersion: example.com/v1, kind: Widget, name: WIDGET, uid: UID, controller: true, blockOwnerDeletion: true}
spec:
  replicas: 2
  selector: {matchLabels: {app: WIDGET}}
  template:
    metadata: {labels: {app: WIDGET}}
    spec: {containers: [{name: web, image: nginx}]}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: WIDGET-config
  ownerReferences:
  - {apiVersion: example.com/v1, kind: Widget, name: WIDGET, uid: UID, controller: true, blockOwnerDeletion: true}
data: {k: v}
`)
		p = filepath.Join(t.TempDir(), widget+"-web.yaml")
		if err := os.WriteFile(p, []byte(d), 0o600); err != nil {
			t.Fatal(err)
		}
		kubectl(t, kc, "apply", "-f", p)
		kubectl(t, kc, "rollout", "status", "deployment/"+widget+"-web", "--timeout=60s")
		return widget + "-web"
	}
	gone := func(args ...string) bool {
		for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
			if strings.TrimSpace(kubectl(t, kc, append(args, "--ignore-not-found", "-o", "name")...)) == "" {
				return true
			}
		}
		return false
	}

	// Background (kubectl's default): the widget goes at once, then what it owns.
	dep := owned("bg")
	kubectl(t, kc, "delete", "widget", "bg")
	if !gone("get", "deployment", dep) || !gone("get", "pods", "-l", "app=bg") || !gone("get", "configmap", "bg-config") {
		t.Fatalf("background: %s", kubectl(t, kc, "get", "deploy,rs,pods"))
	}

	// Foreground: the widget waits for what it owns.
	dep = owned("fg")
	kubectl(t, kc, "delete", "widget", "fg", "--cascade=foreground", "--timeout=60s")
	if out := kubectl(t, kc, "get", "deployment", dep, "--ignore-not-found", "-o", "name"); out != "" {
		t.Fatalf("foreground: the widget went before its deployment: %s", out)
	}
	if !gone("get", "pods", "-l", "app=fg") || !gone("get", "configmap", "fg-config") {
		t.Fatalf("foreground: %s", kubectl(t, kc, "get", "deploy,rs,pods"))
	}

	// Orphan: what it owned stays, with no reference to it.
	dep = owned("or")
	kubectl(t, kc, "delete", "widget", "or", "--cascade=orphan")
	if !gone("get", "widget", "or") {
		t.Fatal("orphan: the widget stayed")
	}
	if refs := kubectl(t, kc, "get", "deployment", dep, "-o", "jsonpath={.metadata.ownerReferences}"); refs != "" {
		t.Fatalf("orphan: the deployment still names its owner: %s", refs)
	}
	if refs := kubectl(t, kc, "get", "configmap", "or-config", "-o", "jsonpath={.metadata.ownerReferences}"); refs != "" {
		t.Fatalf("orphan: the configmap still names its owner: %s", refs)
	}
}

// TestUpCollectsWhatAGoneOwnerOwned: a ConfigMap and a Secret made for a
// Widget already deleted, as an operator with a stale view makes them, are
// deleted by the garbage collector, as in Kubernetes, whose collector
// watches every resource; and so is a ConfigMap whose Deployment goes.
func TestUpCollectsWhatAGoneOwnerOwned(t *testing.T) {
	needKubectl(t)
	f := upFlags{dataDir: t.TempDir(), listen: "127.0.0.1:0", nodes: 1, tick: 200 * time.Millisecond, quiet: true, crds: "../../examples/crd/bases"}
	kc, stop := startUpWith(t, f)
	defer stop()
	kubectl(t, kc, "apply", "-f", "examples/crd/widget.yaml")
	uid := kubectl(t, kc, "get", "widget", "hello", "-o", "jsonpath={.metadata.uid}")
	kubectl(t, kc, "delete", "widget", "hello", "--wait=true")
	owned := filepath.Join(t.TempDir(), "owned.yaml")
	ownerRefs := "  ownerReferences:\n  - {apiVersion: example.com/v1, kind: Widget, name: hello, uid: " + uid + ", controller: true, blockOwnerDeletion: true}\n"
	manifest := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: hello-config\n" + ownerRefs + "data: {k: v}\n---\n" +
		"apiVersion: v1\nkind: Secret\nmetadata:\n  name: hello-secret\n" + ownerRefs + "stringData: {k: v}\n"
	if err := os.WriteFile(owned, []byte(manifest), 0o600); err != nil {
		t.Fatal(err)
	}
	kubectl(t, kc, "apply", "-f", owned)
	waitGone(t, kc, "the dependents of a gone Widget", "configmap/hello-config", "secret/hello-secret")

	kubectl(t, kc, "create", "deployment", "web", "--image=nginx:1.27")
	uid = kubectl(t, kc, "get", "deployment", "web", "-o", "jsonpath={.metadata.uid}")
	manifest = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web-config\n" +
		"  ownerReferences:\n  - {apiVersion: apps/v1, kind: Deployment, name: web, uid: " + uid + ", controller: true}\n"
	if err := os.WriteFile(owned, []byte(manifest), 0o600); err != nil {
		t.Fatal(err)
	}
	kubectl(t, kc, "apply", "-f", owned)
	kubectl(t, kc, "delete", "deployment", "web")
	waitGone(t, kc, "the ConfigMap of a gone Deployment", "configmap/web-config")
}

// waitGone waits until none of objs is left.
func waitGone(t *testing.T, kc, what string, objs ...string) {
	t.Helper()
	var out string
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if out = kubectl(t, kc, append([]string{"get", "-o", "name", "--ignore-not-found"}, objs...)...); out == "" {
			return
		}
	}
	t.Fatalf("%s: still there: %q", what, out)
}
