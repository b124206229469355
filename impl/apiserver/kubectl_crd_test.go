package apiserver

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// runCRDs runs the CRD controllers of k's registry for the test.
func (k *kubectlEnv) runCRDs() {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); k.reg.RunCRDs(ctx) }()
	k.t.Cleanup(func() { cancel(); <-done })
}

// waitEstablished waits with kubectl until the CRD name is established.
// kubectl wait fails at once on a CRD whose status has no conditions yet,
// as it does against kube-apiserver, which serves a new CRD with
// "conditions": null until its controller writes them (kubernetes#66439);
// so a failed wait is tried again.
func (k *kubectlEnv) waitEstablished(name string) {
	k.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		out, err := k.try("wait", "--for", "condition=established", "--timeout=5s", "crd/"+name)
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			k.t.Fatalf("kubectl wait for crd/%s: %v\n%s", name, err, out)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// manifest writes a manifest to a file of the test's and returns its path.
func (k *kubectlEnv) manifest(name, body string) string {
	k.t.Helper()
	p := filepath.Join(k.t.TempDir(), name)
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		k.t.Fatal(err)
	}
	return p
}

// The real kubectl installs the worked example's CRD and uses its custom
// resources end to end: apply, columns, validation, patch, server-side
// apply, explain, watch, and the CRD's deletion taking its resources.
func TestKubectlCustomResources(t *testing.T) {
	k := newKubectlEnv(t)
	k.runCRDs()
	k.run("apply", "-f", "../../examples/crd/bases/example.com_widgets.yaml")
	k.waitEstablished("widgets.example.com")
	if out := k.run("get", "crds"); !regexpFind(`NAME\s+CREATED AT\nwidgets\.example\.com\s+\d{4}-\d\d-\d\dT`, out) {
		t.Fatalf("get crds:\n%s", out)
	}
	if out := k.run("api-resources", "--api-group=example.com"); !strings.Contains(out, "widgets") || !strings.Contains(out, "wd") || !strings.Contains(out, "Widget") {
		t.Fatalf("api-resources:\n%s", out)
	}

	if out := k.run("apply", "-f", "../../examples/crd/widget.yaml"); !strings.Contains(out, "widget.example.com/hello created") {
		t.Fatalf("apply: %s", out)
	}
	out := k.run("get", "widgets")
	if !strings.Contains(out, "IMAGE") || !strings.Contains(out, "REPLICAS") || !strings.Contains(out, "READY") ||
		!strings.Contains(out, "nginx:1.27") || !regexpFind(`hello\s+nginx:1\.27\s+3\s+`, out) {
		t.Fatalf("get widgets:\n%s", out)
	}
	if got := k.run("get", "wd", "hello", "-o", "jsonpath={.spec.size}"); got != "medium" {
		t.Fatalf("defaulted size: %q", got)
	}
	// Client-side apply again: a JSON merge patch, as kubectl computes it
	// for kinds without a strategic schema.
	if out := k.run("apply", "-f", "../../examples/crd/widget.yaml"); !strings.Contains(out, "widget.example.com/hello unchanged") {
		t.Fatalf("apply again: %s", out)
	}
	changed := k.manifest("changed.yaml", "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: hello}\nspec: {image: nginx:1.27, replicas: 1}\n")
	if out := k.run("apply", "-f", changed); !strings.Contains(out, "widget.example.com/hello configured") {
		t.Fatalf("apply a change: %s", out)
	}
	k.run("apply", "-f", "../../examples/crd/widget.yaml")

	// Invalid objects are refused with the field path; nothing is stored.
	bad := k.manifest("bad.yaml", "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: bad}\nspec: {image: nginx, replicas: 11}\n")
	if out, err := k.try("apply", "-f", bad); err == nil || !strings.Contains(out, "spec.replicas") {
		t.Fatalf("invalid apply: err %v\n%s", err, out)
	}
	cel := k.manifest("cel.yaml", "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: bad}\nspec: {image: nginx, replicas: 7}\n")
	if out, err := k.try("apply", "-f", cel); err == nil || !strings.Contains(out, "more than 5 replicas need size large") {
		t.Fatalf("CEL: err %v\n%s", err, out)
	}
	unknown := k.manifest("unknown.yaml", "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: bad}\nspec: {image: nginx, colour: red}\n")
	if out, err := k.try("apply", "-f", unknown); err == nil || !strings.Contains(out, `unknown field "spec.colour"`) {
		t.Fatalf("unknown field under kubectl's strict validation: err %v\n%s", err, out)
	}
	if out, err := k.try("get", "widget", "bad"); err == nil || !strings.Contains(out, "NotFound") {
		t.Fatalf("refused widget stored: %v\n%s", err, out)
	}

	// A watch sees the patches.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	watch := k.command(ctx, "get", "widgets", "--watch-only", "-o", "jsonpath={.spec.replicas}{\"\\n\"}")
	stdout, err := watch.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := watch.Start(); err != nil {
		t.Fatal(err)
	}
	seen := make(chan string, 16)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			seen <- sc.Text()
		}
		close(seen)
	}()
	time.Sleep(500 * time.Millisecond) // the watch is open
	k.run("patch", "widget", "hello", "--type=merge", "-p", `{"spec":{"replicas":4}}`)
	for line := range seen {
		if line == "4" {
			break
		}
	}
	cancel()
	_ = watch.Wait()
	if got := k.run("get", "widget", "hello", "-o", "jsonpath={.spec.replicas}"); got != "4" {
		t.Fatalf("after the merge patch: replicas %q", got)
	}
	if out, err := k.try("patch", "widget", "hello", "--type=strategic", "-p", `{"spec":{"replicas":5}}`); err == nil || !strings.Contains(out, "application/strategic-merge-patch+json is not supported by example.com/v1, Kind=Widget") {
		t.Fatalf("strategic merge patch of a custom resource: err %v\n%s", err, out)
	}

	// Server-side apply takes over the object and owns its fields.
	k.run("apply", "--server-side", "--force-conflicts", "-f", "../../examples/crd/widget.yaml")
	if got := k.run("get", "widget", "hello", "-o", "jsonpath={.spec.replicas}"); got != "3" {
		t.Fatalf("after server-side apply: replicas %q", got)
	}
	if got := k.run("get", "widget", "hello", "--show-managed-fields", "-o", "jsonpath={.metadata.managedFields[*].manager}"); !strings.Contains(got, "kubectl") {
		t.Fatalf("managers: %q", got)
	}

	// The scale subresource maps to .spec.replicas.
	if out := k.run("scale", "widget", "hello", "--replicas=2"); !strings.Contains(out, "widget.example.com/hello scaled") {
		t.Fatalf("scale: %s", out)
	}
	if got := k.run("get", "widget", "hello", "-o", "jsonpath={.spec.replicas}"); got != "2" {
		t.Fatalf("after kubectl scale: replicas %q", got)
	}

	// explain reads the CRD's schema.
	if out := k.run("explain", "widgets.spec.replicas"); !strings.Contains(out, "How many replicas to run") {
		t.Fatalf("explain:\n%s", out)
	}
	// And from /openapi/v2, as older clients read it.
	if out := k.run("explain", "widgets.spec.replicas", "--output=plaintext-openapiv2"); !strings.Contains(out, "How many replicas to run") {
		t.Fatalf("explain from OpenAPI v2:\n%s", out)
	}
	if out := k.run("explain", "deployment.spec.replicas", "--output=plaintext-openapiv2"); !strings.Contains(out, "replicas") || !strings.Contains(out, "integer") {
		t.Fatalf("explain a built-in from OpenAPI v2:\n%s", out)
	}

	// Deleting the CRD deletes its custom resources, then the CRD; the
	// resource is gone from discovery.
	k.run("delete", "crd", "widgets.example.com", "--timeout=20s")
	// (kubectl's discovery cache may still list widgets: then the list is
	// 404, as against kube-apiserver.)
	if out, err := k.try("get", "widgets"); err == nil || !strings.Contains(out, "doesn't have a resource type") && !strings.Contains(out, "the server could not find the requested resource") {
		t.Fatalf("after the CRD's deletion: err %v\n%s", err, out)
	}
}

func regexpFind(pattern, s string) bool { return regexp.MustCompile(pattern).MatchString(s) }
