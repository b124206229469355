package apiserver

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestKubectlServerSideApplyAfterClientSideApplyAndScale: kubectl apply,
// kubectl scale, then kubectl apply --server-side of the same manifest.
// The scale write is owned by the scaling manager (subresource "scale"),
// so applying the old replica count conflicts with it, as it does on
// Kubernetes ("conflict with "kube-controller-manager" with subresource
// "scale"" is what an HPA's writes give appliers). Forced, the apply
// takes the field, and kubectl moves the client-side manager's fields to
// its own (a managedFields patch the server honours). A client-side
// applied field whose value nobody changed migrates without a conflict;
// another manager's field still conflicts.
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
	out, err := k.try("apply", "--server-side", "-f", web)
	if err == nil || !strings.Contains(out, `conflict with "kubectl" with subresource "scale" using apps/v1: .spec.replicas`) {
		t.Fatalf("want a conflict with the scale writer: %v\n%s", err, out)
	}
	if out := k.run("apply", "--server-side", "--force-conflicts", "-f", web); !strings.Contains(out, "serverside-applied") {
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
	out, err = k.try("apply", "--server-side", "-f", manifest("ready", "\n  minReadySeconds: 3"))
	if err == nil || !strings.Contains(out, `conflict with "other" using apps/v1: .spec.minReadySeconds`) {
		t.Fatalf("want a conflict with other: %v\n%s", err, out)
	}
}

// TestKubectlServerSideApplyTakesOverClientSideApply: kubectl apply, then
// kubectl apply --server-side of a changed replica count. The field
// belongs to kubectl's client-side manager, but its last-applied
// annotation names it with the live value, so Kubernetes' last-applied
// manager lets kubectl take it without --force-conflicts, and kubectl
// then migrates the client-side manager's fields to its own.
func TestKubectlServerSideApplyTakesOverClientSideApply(t *testing.T) {
	k := newKubectlEnv(t)
	dir := t.TempDir()
	manifest := func(replicas string) string {
		p := filepath.Join(dir, "api-"+replicas+".yaml")
		if err := os.WriteFile(p, []byte(`apiVersion: apps/v1
kind: Deployment
metadata:
  name: api
spec:
  replicas: `+replicas+`
  selector:
    matchLabels: {app: api}
  template:
    metadata:
      labels: {app: api}
    spec:
      containers:
      - name: api
        image: nginx:1.27
`), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	k.run("apply", "-f", manifest("2"))
	if out := k.run("apply", "--server-side", "-f", manifest("3")); !strings.Contains(out, "serverside-applied") {
		t.Fatalf("server-side apply: %s", out)
	}
	if got := k.run("get", "deployment", "api", "-o", "jsonpath={.spec.replicas}"); got != "3" {
		t.Errorf("replicas %s after the server-side apply of 3", got)
	}
	mf := k.run("get", "deployment", "api", "-o", "jsonpath={range .metadata.managedFields[*]}{.manager}/{.operation};{end}")
	if strings.Contains(mf, "kubectl-client-side-apply/") || !strings.Contains(mf, "kubectl/Apply;") {
		t.Errorf("managers after the migration: %s", mf)
	}
}
