package apiserver

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestKubectlServerSideApplyAfterClientSideApplyAndScale: kubectl apply,
// kubectl scale, then kubectl apply --server-side of the same manifest,
// which Kubernetes accepts. The scale write is owned by the scaling
// manager (subresource "scale"); kubectl's server-side apply may take
// over what its client-side apply annotation names (Kubernetes'
// last-applied manager), then moves the client-side manager's fields to
// its own (a managedFields patch the server honours). A field the
// annotation does not name still conflicts.
func TestKubectlServerSideApplyAfterClientSideApplyAndScale(t *testing.T) {
	k := newKubectlEnv(t)
	dir := t.TempDir()
	manifest := func(name, extra string) string {
		p := filepath.Join(dir, name+".yaml")
		if err := os.WriteFile(p, []byte(`apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 2`+extra+`
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: web
        image: nginx:1.27
`), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	web := manifest("web", "")
	k.run("apply", "-f", web)
	k.run("scale", "deployment/web", "--replicas=5")
	managers := func() string {
		return k.run("get", "deployment", "web", "-o", "jsonpath={range .metadata.managedFields[*]}{.manager}/{.operation}/{.subresource};{end}")
	}
	if mf := managers(); !strings.Contains(mf, "/Update/scale;") {
		t.Fatalf("the scale write has no manager of its own: %s", mf)
	}
	if out := k.run("apply", "--server-side", "-f", web); !strings.Contains(out, "serverside-applied") {
		t.Fatalf("server-side apply: %s", out)
	}
	if got := k.run("get", "deployment", "web", "-o", "jsonpath={.spec.replicas}"); got != "2" {
		t.Errorf("replicas %s after the server-side apply of 2", got)
	}
	if mf := managers(); strings.Contains(mf, "kubectl-client-side-apply/") || !strings.Contains(mf, "kubectl/Apply/;") {
		t.Errorf("managers after the migration: %s", mf)
	}

	// Another manager's field, which no client-side apply named, conflicts.
	k.run("patch", "deployment", "web", "--type=merge", "-p", `{"spec":{"minReadySeconds":7}}`, "--field-manager=other")
	out, err := k.try("apply", "--server-side", "-f", manifest("ready", "\n  minReadySeconds: 3"))
	if err == nil || !strings.Contains(out, `conflict with "other" using apps/v1: .spec.minReadySeconds`) {
		t.Fatalf("want a conflict with other: %v\n%s", err, out)
	}
}
