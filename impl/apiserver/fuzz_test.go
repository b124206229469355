package apiserver

import (
	"context"
	"encoding/json"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/impl/registry"
	"github.com/converge-dev/converge/impl/store/storetest"
)

// FuzzApplyPatch: no patch of any type, applied to any document, panics.
func FuzzApplyPatch(f *testing.F) {
	doc := `{"metadata":{"name":"a","labels":{"x":"1"}},"spec":{"template":{"spec":{"containers":[{"name":"c","ports":[{"containerPort":80}]}]}}}}`
	for _, p := range []string{
		`[{"op":"move","from":"/spec","path":"/spec/x"}]`,
		`[{"op":"copy","from":"","path":"/x"}]`,
		`[{"op":"add","path":"/spec/template/spec/containers/-","value":{}}]`,
		`{"spec":{"template":{"spec":{"containers":[{"name":"c","$patch":"delete"}]}}}}`,
		`{"$retainKeys":"x","spec":{"$patch":"replace"}}`,
		`{"metadata":{"$deleteFromPrimitiveList/finalizers":7}}`,
	} {
		for _, mt := range []string{jsonPatchType, mergePatchType, strategicPatchType} {
			f.Add(mt, doc, p)
		}
	}
	f.Fuzz(func(t *testing.T, mt, doc, patch string) {
		if err := checkPatchSyntax(mt, []byte(patch)); err != nil {
			return
		}
		_, _ = applyPatch(mt, []byte(doc), []byte(patch))
	})
}

// FuzzParseRoute: any path parses or fails with a Status, never panics.
func FuzzParseRoute(f *testing.F) {
	for _, p := range []string{"/api/v1/namespaces/a/pods/b/status", "/apis/apps/v1/deployments", "/api/v1/namespaces/x/status", "//api//v1/", "/apis/apps"} {
		f.Add(p)
	}
	f.Fuzz(func(t *testing.T, path string) {
		if _, err := parseRoute(path); err != nil && err.Error() == "" {
			t.Fatal("error without a message")
		}
	})
}

// FuzzHandler sends arbitrary requests to a server over a real store: none
// may be answered with a 500 (a recovered panic or an unclassified error)
// or with a body that is not JSON.
func FuzzHandler(f *testing.F) {
	for _, c := range badRequests() {
		ct := "application/json"
		for _, h := range c.hdr {
			if v, ok := strings.CutPrefix(h, "Content-Type: "); ok {
				ct = v
			}
		}
		f.Add(c.method, c.path, ct, c.body)
	}
	f.Add("POST", podPath, "application/yaml", "apiVersion: v1\nkind: Pod\nmetadata: {name: y}\nspec: {containers: [{name: c, image: i}]}\n")
	f.Add("PATCH", podPath+"/p1/status", strategicPatchType, `{"status":{"conditions":[{"type":"Ready","status":"True"}]}}`)
	f.Add("POST", "/api/v1/namespaces/default/bindings", "application/json", `{"metadata":{"name":"p1"},"target":{"name":"n1"}}`)
	reg := registry.New(registry.Config{Store: storetest.Store(f)})
	s, err := New(Config{Registry: reg, MaxBodyBytes: 64 << 10, Log: log.New(io.Discard, "", 0)})
	if err != nil {
		f.Fatal(err)
	}
	h := s.Handler()
	ctx := context.Background()
	if _, err := reg.Create(ctx, &api.Pod{ObjectMeta: api.ObjectMeta{Name: "p1", Namespace: "default"},
		Spec: api.PodSpec{Containers: []api.Container{{Name: "c", Image: "nginx"}}}}); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, method, path, contentType, body string) {
		u, err := url.Parse(path)
		if err != nil || strings.Contains(u.RawQuery, "watch") {
			return // watches stream until cancelled
		}
		req := httptest.NewRequest(http.MethodGet, "/", strings.NewReader(body))
		req.Method, req.URL = method, u
		req.Header.Set("Content-Type", contentType)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code >= 500 {
			t.Fatalf("%s %s: %d %s", method, path, rec.Code, rec.Body.String())
		}
		if rec.Header().Get("Content-Type") == "application/json" && !json.Valid(rec.Body.Bytes()) {
			t.Fatalf("%s %s: invalid JSON %q", method, path, rec.Body.String())
		}
	})
}
