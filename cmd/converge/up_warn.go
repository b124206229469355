package main

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/converge-dev/converge/impl/cluster"
)

// reconciled are the namespaced resources converge's controllers act on.
var reconciled = map[string]bool{"deployments": true, "replicasets": true, "pods": true, "services": true, "endpoints": true}

// warnOutsideControllers wraps the apiserver so that a write of a resource
// the controllers reconcile, in a namespace other than theirs, answers
// with a Warning header (kubectl prints it): the object is stored and
// served, but nothing will ever act on it, which would otherwise look
// like a hung rollout.
func warnOutsideControllers(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if ns, resource, ok := namespacedWrite(r); ok && ns != cluster.Namespace && reconciled[resource] {
			w.Header().Add("Warning", fmt.Sprintf(`299 - "converge's controllers act in namespace %s only: %s in namespace %s are stored and served but not reconciled"`,
				cluster.Namespace, resource, ns))
		}
		h.ServeHTTP(w, r)
	})
}

// namespacedWrite reads the namespace and resource of a create, update or
// patch: /api/v1/namespaces/NS/RESOURCE[/...] or
// /apis/GROUP/VERSION/namespaces/NS/RESOURCE[/...].
func namespacedWrite(r *http.Request) (namespace, resource string, ok bool) {
	switch r.Method {
	case http.MethodPost, http.MethodPut, http.MethodPatch:
	default:
		return "", "", false
	}
	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	for i := 0; i+2 < len(parts); i++ {
		if parts[i] == "namespaces" && i >= 2 && (parts[0] == "api" || parts[0] == "apis") {
			return parts[i+1], parts[i+2], true
		}
	}
	return "", "", false
}
