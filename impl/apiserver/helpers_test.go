package apiserver

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/impl/registry"
	"github.com/converge-dev/converge/impl/store"
	"github.com/converge-dev/converge/impl/store/storetest"
)

func TestMain(m *testing.M) { storetest.Main(m) }

// Tokens and rules of the authenticated test servers.
const (
	adminToken  = "admin-token"
	viewerToken = "viewer-token"
	devToken    = "dev-token"
)

const testTokens = `admin-token,admin,1,"system:masters"
viewer-token,viewer,2
dev-token,dev,3,"devs,others"
`

const testRules = `
- groups: ["system:masters"]
  verbs: ["*"]
  resources: ["*"]
- users: ["viewer"]
  verbs: ["get", "list", "watch"]
  resources: ["pods", "deployments"]
- groups: ["devs"]
  verbs: ["*"]
  resources: ["pods", "pods/status", "deployments", "deployments/scale"]
  namespaces: ["dev"]
`

// testEnv is a server over a fresh store.
type testEnv struct {
	t     *testing.T
	st    *store.Store
	reg   *registry.Registry
	srv   *httptest.Server
	token string
}

func newEnvOn(t *testing.T, st *store.Store, auth *Auth, mod func(*Config)) *testEnv {
	t.Helper()
	reg := registry.New(registry.Config{Store: st})
	cfg := Config{Registry: reg, Auth: auth, Log: log.New(io.Discard, "", 0)}
	if mod != nil {
		mod(&cfg)
	}
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s.Handler())
	t.Cleanup(srv.Close)
	return &testEnv{t: t, st: st, reg: reg, srv: srv}
}

// newEnv is an anonymous-friendly server with no auth.
func newEnv(t *testing.T) *testEnv { return newEnvOn(t, storetest.Store(t), nil, nil) }

// testAuth loads the test token and rules files.
func testAuth(t *testing.T, anonymous bool) *Auth {
	t.Helper()
	dir := t.TempDir()
	tok, rules := filepath.Join(dir, "tokens.csv"), filepath.Join(dir, "rules.yaml")
	if err := os.WriteFile(tok, []byte(testTokens), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(rules, []byte(testRules), 0o600); err != nil {
		t.Fatal(err)
	}
	a, err := LoadAuth(tok, rules, anonymous)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

type response struct {
	code int
	body []byte
	hdr  http.Header
}

func (r response) status(t *testing.T) api.Status {
	t.Helper()
	var st api.Status
	if err := json.Unmarshal(r.body, &st); err != nil || st.Kind != "Status" {
		t.Fatalf("want a Status body, got %d %s (%v)", r.code, r.body, err)
	}
	return st
}

// into decodes the body into v, zeroed first so maps do not merge.
func (r response) into(t *testing.T, v any) {
	t.Helper()
	reflect.ValueOf(v).Elem().SetZero()
	if err := json.Unmarshal(r.body, v); err != nil {
		t.Fatalf("decode %s: %v", r.body, err)
	}
}

// do sends one request; hdr is "Name: value" pairs.
func (e *testEnv) do(method, path, body string, hdr ...string) response {
	e.t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, e.srv.URL+path, rd)
	if err != nil {
		e.t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if e.token != "" {
		req.Header.Set("Authorization", "Bearer "+e.token)
	}
	for _, h := range hdr {
		k, v, _ := strings.Cut(h, ":")
		req.Header.Set(strings.TrimSpace(k), strings.TrimSpace(v))
	}
	resp, err := e.srv.Client().Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return response{code: resp.StatusCode, body: b, hdr: resp.Header}
}

// must sends a request and fails the test unless it answers code.
func (e *testEnv) must(code int, method, path, body string, hdr ...string) response {
	e.t.Helper()
	r := e.do(method, path, body, hdr...)
	if r.code != code {
		e.t.Fatalf("%s %s: want %d, got %d: %s", method, path, code, r.code, r.body)
	}
	return r
}

func (e *testEnv) rev() int64 {
	e.t.Helper()
	rev, err := e.st.Rev(context.Background())
	if err != nil {
		e.t.Fatal(err)
	}
	return rev
}

// deploymentJSON is a valid Deployment named name with replicas and image.
func deploymentJSON(name string, replicas int, image string) string {
	var b bytes.Buffer
	_ = json.NewEncoder(&b).Encode(map[string]any{
		"apiVersion": "apps/v1", "kind": "Deployment",
		"metadata": map[string]any{"name": name, "labels": map[string]any{"app": name}},
		"spec": map[string]any{
			"replicas": replicas,
			"selector": map[string]any{"matchLabels": map[string]any{"app": name}},
			"template": map[string]any{
				"metadata": map[string]any{"labels": map[string]any{"app": name}},
				"spec": map[string]any{"containers": []any{map[string]any{
					"name": "nginx", "image": image,
					"ports": []any{map[string]any{"containerPort": 80}},
				}}},
			},
		},
	})
	return b.String()
}

func podJSON(name string, labels map[string]string) string {
	b, _ := json.Marshal(map[string]any{
		"apiVersion": "v1", "kind": "Pod",
		"metadata": map[string]any{"name": name, "labels": labels},
		"spec":     map[string]any{"containers": []any{map[string]any{"name": "c", "image": "nginx:1.27"}}},
	})
	return string(b)
}

const deployPath = "/apis/apps/v1/namespaces/default/deployments"
