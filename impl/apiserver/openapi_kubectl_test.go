package apiserver

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// kubectl's client-side validation (no --validate=false) reads /openapi/v3:
// the manifests of the seed pass it, an unknown field is reported.
func TestKubectlValidatesAgainstOpenAPI(t *testing.T) {
	k := newKubectlEnv(t)
	for _, f := range []string{"../../examples/my-app.yaml", "../../examples/my-service.yaml"} {
		if out := k.run("apply", "-f", f); !strings.Contains(out, "created") {
			t.Fatalf("apply %s: %s", f, out)
		}
	}
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	manifest := `apiVersion: apps/v1
kind: Deployment
metadata:
  name: bad
spec:
  replicas: 1
  replicaz: 2
  selector:
    matchLabels: {app: bad}
  template:
    metadata:
      labels: {app: bad}
    spec:
      containers:
        - name: nginx
          image: nginx:1.27
`
	if err := os.WriteFile(bad, []byte(manifest), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := k.try("apply", "-f", bad)
	if err == nil || !strings.Contains(out, "replicaz") {
		t.Fatalf("want kubectl to reject the unknown field spec.replicaz, got err=%v:\n%s", err, out)
	}
	t.Logf("kubectl rejects the unknown field: %s", out)
	if _, err := k.try("get", "deployment", "bad"); err == nil {
		t.Fatal("the rejected deployment was stored")
	}
}
