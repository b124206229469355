package apiserver

import (
	"context"
	corev1 "k8s.io/api/core/v1"
	"net/http"
	"slices"
	"testing"

	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/impl/client"
)

// namespaces/{name}/finalize takes only PUT: a delete marks the namespace,
// a finalize that empties spec.finalizers removes it, and the other verbs
// are 405 as upstream's FinalizeREST serves only update.
func TestFinalizeSubresource(t *testing.T) {
	e := newEnv(t)
	var ns api.Namespace
	e.must(http.StatusCreated, "POST", "/api/v1/namespaces", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"team"}}`).into(t, &ns)
	if !slices.Equal(ns.Spec.Finalizers, []corev1.FinalizerName{"kubernetes"}) {
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

// converge's own client finalizes a namespace in process and over HTTP
// alike.
func TestClientFinalizesANamespace(t *testing.T) {
	e := newEnv(t)
	remote, err := client.HTTP(client.HTTPConfig{Server: e.srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for name, c := range map[string]client.Client{"local": client.Local(e.reg), "http": remote} {
		if _, err := c.Create(ctx, &api.Namespace{ObjectMeta: api.ObjectMeta{Name: name}}); err != nil {
			t.Fatal(err)
		}
		marked, err := c.Delete(ctx, "namespaces", "", name, api.DeleteOptions{})
		if err != nil {
			t.Fatal(err)
		}
		ns := marked.(*api.Namespace)
		if ns.DeletionTimestamp == nil || !slices.Equal(ns.Spec.Finalizers, []corev1.FinalizerName{"kubernetes"}) {
			t.Fatalf("%s: deleted namespace %+v, want it marked and held", name, ns)
		}
		ns.Spec.Finalizers = nil
		if _, err := c.FinalizeNamespace(ctx, ns); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if _, err := c.Get(ctx, "namespaces", "", name); !api.IsNotFound(err) {
			t.Fatalf("%s: namespace after finalize: %v, want NotFound", name, err)
		}
	}
}
