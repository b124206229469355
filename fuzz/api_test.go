package fuzz

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
	"github.com/converge-dev/converge/impl/apiserver"
	"github.com/converge-dev/converge/impl/registry"
	"github.com/converge-dev/converge/impl/store/storetest"
)

// FuzzAPIRequest sends arbitrary method, path, content type and body to
// the apiserver's handler over a real store. No request may panic or get a
// 5xx, every JSON answer must be valid JSON, and a rejected request (any
// non-2xx) must leave the store's revision unchanged.
func FuzzAPIRequest(f *testing.F) {
	const pods = "/api/v1/namespaces/default/pods"
	const deploys = "/apis/apps/v1/namespaces/default/deployments"
	pod := `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p2"},"spec":{"containers":[{"name":"c","image":"nginx"}]}}`
	f.Add("POST", pods, "application/json", pod)
	f.Add("POST", pods, "application/json", `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"Bad_Name"}}`)
	f.Add("POST", pods, "application/json", `{not json`)
	f.Add("POST", deploys, "application/json", `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"},"spec":{"replicas":-1}}`)
	f.Add("PUT", pods+"/p1", "application/json", `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p1","resourceVersion":"1"},"spec":{"containers":[{"name":"c","image":"x"}]}}`)
	f.Add("PATCH", pods+"/p1", "application/merge-patch+json", `{"metadata":{"labels":{"a":"b"}}}`)
	f.Add("PATCH", pods+"/p1", "application/json-patch+json", `[{"op":"test","path":"/metadata/name","value":"nope"}]`)
	f.Add("PATCH", pods+"/p1", "application/strategic-merge-patch+json", `{"spec":{"containers":[{"name":"c","image":"y"}]}}`)
	f.Add("PATCH", pods+"/p1?fieldManager=f", "application/apply-patch+yaml", "apiVersion: v1\nkind: Pod\nmetadata: {name: p1}\n")
	f.Add("DELETE", pods+"/nope", "application/json", ``)
	f.Add("GET", pods+"?labelSelector=a%3D%3D", "", ``)
	f.Add("POST", pods+"/p1/binding", "application/json", `{"apiVersion":"v1","kind":"Binding","metadata":{"name":"p1"},"target":{"kind":"Node","name":"n"}}`)
	f.Add("POST", "/api/v1/namespaces/default/gizmos", "text/plain", `x`)
	f.Add("GET", "/openapi/v3/apis/apps/v1", "", ``)
	st := storetest.Store(f)
	reg := registry.New(registry.Config{Store: st})
	s, err := apiserver.New(apiserver.Config{Registry: reg, MaxBodyBytes: 64 << 10, Log: log.New(io.Discard, "", 0)})
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
			return // watches stream until cancelled; they are tested elsewhere
		}
		before, err := st.Rev(ctx)
		if err != nil {
			t.Fatal(err)
		}
		req := httptest.NewRequest(http.MethodGet, "/", strings.NewReader(body))
		req.Method, req.URL = method, u
		req.Header.Set("Content-Type", contentType)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code >= 500 {
			t.Fatalf("%s %s: %d %s", method, path, rec.Code, rec.Body.String())
		}
		if strings.HasPrefix(rec.Header().Get("Content-Type"), "application/json") && !json.Valid(rec.Body.Bytes()) {
			t.Fatalf("%s %s: invalid JSON %q", method, path, rec.Body.String())
		}
		if rec.Code >= 300 {
			if after, err := st.Rev(ctx); err != nil || after != before {
				t.Fatalf("%s %s was rejected with %d but the store moved from %d to %d (%v)", method, path, rec.Code, before, after, err)
			}
		}
	})
}
