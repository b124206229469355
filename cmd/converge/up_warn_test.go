package main

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestWritesOutsideTheControllersNamespaceWarn(t *testing.T) {
	h := warnOutsideControllers(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	for _, c := range []struct {
		method, path string
		warn         bool
	}{
		{"POST", "/apis/apps/v1/namespaces/dev/deployments", true},
		{"PATCH", "/apis/apps/v1/namespaces/dev/deployments/web/scale", true},
		{"PUT", "/api/v1/namespaces/dev/services/web", true},
		{"POST", "/apis/apps/v1/namespaces/default/deployments", false},
		{"GET", "/apis/apps/v1/namespaces/dev/deployments", false},
		{"POST", "/api/v1/namespaces", false},
		{"POST", "/api/v1/nodes", false},
		{"POST", "/api/v1/namespaces/dev/configmaps", false},
	} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(c.method, c.path, nil))
		if got := rec.Header().Get("Warning") != ""; got != c.warn {
			t.Errorf("%s %s: warning %v, want %v (%q)", c.method, c.path, got, c.warn, rec.Header().Get("Warning"))
		}
	}
}
