package apiserver

import (
	"strings"
	"testing"
)

// TestKubectlAuthWhoamiAndList: the real kubectl's `auth whoami` and
// `auth can-i --list` find their reviews through discovery and print
// converge's answer.
func TestKubectlAuthWhoamiAndList(t *testing.T) {
	k := newKubectlEnv(t)
	out := k.run("auth", "whoami")
	for _, want := range []string{"Username", "admin", "system:masters", "system:authenticated"} {
		if !strings.Contains(out, want) {
			t.Fatalf("auth whoami lacks %q:\n%s", want, out)
		}
	}
	out = k.run("auth", "can-i", "--list", "--token", viewerToken)
	var pods, reviews bool
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) < 4 {
			continue
		}
		switch f[0] {
		case "pods.*":
			pods = strings.HasSuffix(strings.TrimSpace(line), "[get list watch]")
		case "selfsubjectrulesreviews.authorization.k8s.io":
			reviews = true
		}
	}
	if !pods || !reviews {
		t.Fatalf("auth can-i --list for the viewer: pods get/list/watch %v, rules reviews %v:\n%s", pods, reviews, out)
	}
}

// TestKubectlGetEndpoints: kubectl get endpoints shows where a Service's
// traffic goes.
func TestKubectlGetEndpoints(t *testing.T) {
	k := newKubectlEnv(t)
	k.run("apply", "-f", k.manifest("ep.yaml", `apiVersion: v1
kind: Endpoints
metadata: {name: web}
subsets:
- addresses: [{ip: 10.0.0.1}, {ip: 10.0.0.2}]
  ports: [{name: http, port: 80}]
`))
	out := k.run("get", "endpoints", "web")
	if !strings.Contains(out, "ENDPOINTS") || !strings.Contains(out, "10.0.0.1:80,10.0.0.2:80") {
		t.Fatalf("get endpoints:\n%s", out)
	}
}
