package apiserver

import (
	"net/http"
	"slices"
	"testing"

	"github.com/converge-dev/converge/impl/api"
)

// namespaces/{name}/finalize takes only PUT: a delete marks the namespace,
// a finalize that empties spec.finalizers removes it, and the other verbs
// are 405 as upstream's FinalizeREST serves only update.
func TestFinalizeSubresource(t *testing.T) {
	e := newEnv(t)
	var ns api.Namespace
	e.must(http.StatusCreated, "POST", "/api/v1/namespaces", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"team"}}`).into(t, &ns)
	if !slices.Equal(ns.Spec.Finalizers, []string{"kubernetes"}) {
		t.Fatalf("created namespace: spec.finalizers %q, want [kubernetes]", ns.Spec.Finalizers)
	}
	for _, method := range []string{"GET", "PATCH", "DELETE", "POST"} {
		r := e.must(http.StatusMethodNotAllowed, method, "/api/v1/namespaces/team/finalize", `{}`)
		if st := r.status(t); st.Reason != api.StatusReasonMethodNotAllowed {
			t.Fatalf("%s finalize: %+v", method, st)
		}
	}
	e.must(http.StatusOK, "DELETE", "/api/v1/namespaces/team", "").into(t, &ns)
	if ns.DeletionTimestamp == nil || ns.Status.Phase != api.NamespaceTerminating {
		t.Fatalf("deleted namespace: %+v, want it Terminating", ns)
	}
	e.must(http.StatusBadRequest, "PUT", "/api/v1/namespaces/team/finalize", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"other"}}`)
	e.must(http.StatusOK, "PUT", "/api/v1/namespaces/team/finalize",
		`{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"team","resourceVersion":"`+ns.ResourceVersion+`"},"spec":{"finalizers":[]}}`)
	e.must(http.StatusNotFound, "GET", "/api/v1/namespaces/team", "")
	e.must(http.StatusNotFound, "PUT", "/api/v1/namespaces/team/finalize", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"team"}}`)
}
