package apiserver

import (
	"encoding/json"
	"io"
	"log"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/converge-dev/converge/impl/registry"
	"github.com/converge-dev/converge/impl/store/storetest"
)

// BenchmarkGetDeployment is one GET through the handler to etcd and back.
func BenchmarkGetDeployment(b *testing.B) {
	reg := registry.New(registry.Config{Store: storetest.Store(b)})
	s, err := New(Config{Registry: reg, Log: log.New(io.Discard, "", 0)})
	if err != nil {
		b.Fatal(err)
	}
	h := s.Handler()
	rec := httptest.NewRecorder()
	req := httptest.NewRequest("POST", deployPath, strings.NewReader(deploymentJSON("web", 3, "nginx:1.27")))
	req.Header.Set("Content-Type", "application/json")
	h.ServeHTTP(rec, req)
	if rec.Code != 201 {
		b.Fatalf("create: %d %s", rec.Code, rec.Body)
	}
	b.ResetTimer()
	for b.Loop() {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", webPath, nil))
		if rec.Code != 200 {
			b.Fatalf("get: %d", rec.Code)
		}
	}
}

// BenchmarkStrategicMergeSetImage is the patch kubectl set image sends.
func BenchmarkStrategicMergeSetImage(b *testing.B) {
	doc := []byte(deploymentJSON("web", 3, "nginx:1.27"))
	patch := []byte(`{"spec":{"template":{"spec":{"containers":[{"name":"nginx","image":"nginx:1.28"}]}}}}`)
	for b.Loop() {
		out, err := applyPatch(strategicPatchType, "deployments", doc, patch)
		if err != nil || !json.Valid(out) {
			b.Fatal(err)
		}
	}
}
