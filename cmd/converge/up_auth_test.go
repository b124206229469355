package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The authorization rules hold for the real kubectl, and kubectl auth
// can-i reports them.
func TestAuthorizationRulesWithKubectl(t *testing.T) {
	needKubectl(t)
	dir := t.TempDir()
	tokens, rules := filepath.Join(dir, "tokens.csv"), filepath.Join(dir, "rules.yaml")
	if err := os.WriteFile(tokens, []byte("admin-token,admin,1,\"system:masters\"\nviewer-token,viewer,2\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	rulesYAML := "- groups: [\"system:masters\"]\n  verbs: [\"*\"]\n  resources: [\"*\"]\n" +
		"- users: [\"viewer\"]\n  verbs: [\"get\", \"list\", \"watch\"]\n  resources: [\"pods\", \"deployments\"]\n"
	if err := os.WriteFile(rules, []byte(rulesYAML), 0o600); err != nil {
		t.Fatal(err)
	}
	kc, stop := startUpWith(t, upFlags{dataDir: filepath.Join(dir, "data"), listen: "127.0.0.1:0", nodes: 1,
		tick: 200 * time.Millisecond, quiet: true, tokenFile: tokens, rulesFile: rules})
	defer stop()
	run := func(args ...string) (string, error) {
		cmd := exec.Command(kubectlBin, args...)
		cmd.Env = append(os.Environ(), "KUBECONFIG="+kc)
		out, err := cmd.CombinedOutput()
		return strings.TrimSpace(string(out)), err
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"auth", "can-i", "delete", "pods"}, "yes"},
		{[]string{"auth", "can-i", "get", "pods", "--token=viewer-token"}, "yes"},
		{[]string{"auth", "can-i", "delete", "pods", "--token=viewer-token"}, "no"},
		{[]string{"auth", "can-i", "get", "deployments", "--token=viewer-token", "-n", "dev"}, "yes"},
		{[]string{"auth", "can-i", "create", "deployments", "--token=viewer-token"}, "no"},
	} {
		out, err := run(c.args...)
		if out != c.want || (err == nil) != (c.want == "yes") {
			t.Errorf("kubectl %s: %q (%v), want %q", strings.Join(c.args, " "), out, err, c.want)
		}
	}
	kubectl(t, kc, "apply", "-f", "examples/my-app.yaml")
	if out, err := run("delete", "deployment", "myapp", "--token=viewer-token"); err == nil || !strings.Contains(out, `User "viewer" cannot delete resource "deployments"`) {
		t.Fatalf("a viewer's delete: %v\n%s", err, out)
	}
	if out, err := run("get", "deployment", "myapp", "--token=viewer-token"); err != nil || !strings.Contains(out, "myapp") {
		t.Fatalf("a viewer's get: %v\n%s", err, out)
	}
}
