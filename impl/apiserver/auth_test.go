package apiserver

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/converge-dev/converge/impl/store/storetest"
)

func TestAuthAllowsByRule(t *testing.T) {
	e := newEnvOn(t, storetest.Store(t), testAuth(t, false), nil)
	e.token = adminToken
	e.must(201, "POST", "/api/v1/namespaces", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"dev"}}`)
	e.must(201, "POST", podPath, podJSON("p", nil))
	e.token = viewerToken
	e.must(200, "GET", podPath+"/p", "")
	e.must(200, "GET", "/api/v1/pods", "") // no namespace restriction for viewer
	e.must(200, "GET", "/api", "")         // discovery for any authenticated user
	e.token = devToken
	e.must(201, "POST", "/api/v1/namespaces/dev/pods", podJSON("q", nil))
	e.must(200, "PATCH", "/api/v1/namespaces/dev/pods/q/status", `{"status":{"phase":"Running"}}`, "Content-Type: "+mergePatchType)
	e.must(403, "GET", "/api/v1/pods", "") // the cluster scope is not "dev"
	e.token = ""
	e.must(401, "GET", "/api", "")
}

func TestAnonymousRequests(t *testing.T) {
	e := newEnvOn(t, storetest.Store(t), testAuth(t, true), nil)
	st := e.must(403, "GET", podPath, "").status(t)
	if want := `pods is forbidden: User "system:anonymous" cannot list resource "pods" in API group "" in the namespace "default"`; st.Message != want {
		t.Fatalf("message %q", st.Message)
	}
	e.must(200, "GET", "/version", "")
	e.token = "wrong"
	e.must(401, "GET", "/version", "") // a bad token is never anonymous
}

func TestLoadAuthRejectsBadFiles(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("tokens.csv", testTokens)
	for name, c := range map[string][2]string{
		"short record":   {write("t1.csv", "tok,user\n"), ""},
		"bad quoting":    {write("t2.csv", "tok,user,1,\"a\n"), ""},
		"unknown field":  {good, write("r1.yaml", "- users: [a]\n  verbs: [get]\n  resources: [pods]\n  colour: red\n")},
		"rule w/o verbs": {good, write("r2.yaml", "- users: [a]\n  resources: [pods]\n")},
		"not a list":     {good, write("r3.yaml", "users: [a]\n")},
	} {
		if _, err := LoadAuth(c[0], c[1], false); !errors.Is(err, ErrAuthConfig) {
			t.Errorf("%s: want ErrAuthConfig, got %v", name, err)
		}
	}
	if _, err := LoadAuth(filepath.Join(dir, "missing"), "", false); err == nil {
		t.Error("missing token file accepted")
	}
}
