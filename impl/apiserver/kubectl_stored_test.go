package apiserver

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestKubectlOnStoredKinds: the real kubectl creates (over protobuf),
// applies, lists, explains and discovers the stored-only kinds.
func TestKubectlOnStoredKinds(t *testing.T) {
	k := newKubectlEnv(t)
	for _, args := range [][]string{
		{"create", "configmap", "app-config", "--from-literal=a=1", "--from-literal=b=2"},
		{"create", "secret", "generic", "db", "--from-literal=password=pw"},
		{"create", "serviceaccount", "builder"},
	} {
		if out := k.run(args...); !strings.Contains(out, "created") {
			t.Fatalf("kubectl %s: %s", strings.Join(args, " "), out)
		}
	}
	lease := filepath.Join(t.TempDir(), "lease.yaml")
	if err := os.WriteFile(lease, []byte(`apiVersion: coordination.k8s.io/v1
kind: Lease
metadata:
  name: leader
spec:
  holderIdentity: node-a
  leaseDurationSeconds: 15
  renewTime: "2026-01-02T03:04:05.000000Z"
`), 0o600); err != nil {
		t.Fatal(err)
	}
	k.run("apply", "-f", lease)
	for args, want := range map[string][]string{
		"get configmap app-config":                   {"NAME", "DATA", "app-config   2"},
		"get secret db":                              {"TYPE", "db     Opaque   1"},
		"get serviceaccount builder":                 {"SECRETS", "builder"},
		"get leases":                                 {"HOLDER", "leader   node-a"},
		"get secret db -o jsonpath={.data.password}": {"cHc="},
		"explain lease.spec":                         {"holderIdentity", "leaseDurationSeconds"},
		"explain configmap.binaryData":               {"binaryData"},
		"api-resources":                              {"configmaps", "cm", "secrets", "serviceaccounts", "sa", "leases", "coordination.k8s.io/v1"},
	} {
		out := k.run(strings.Fields(args)...)
		for _, w := range want {
			if !strings.Contains(out, w) {
				t.Errorf("kubectl %s lacks %q:\n%s", args, w, out)
			}
		}
	}
	k.run("delete", "configmap", "app-config")
	if out, err := k.try("get", "configmap", "app-config"); err == nil || !strings.Contains(out, "NotFound") {
		t.Fatalf("after delete: %v %s", err, out)
	}
}
