package apiserver

import (
	"net/http"

	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/impl/registry"
)

// serveFinalize: PUT namespaces/{name}/finalize writes a namespace's
// spec.finalizers through registry.FinalizeNamespace, as upstream's
// namespace controller does once the namespace is empty; discovery lists
// only "update" for it, as upstream does.
func (s *Server) serveFinalize(w http.ResponseWriter, r *http.Request, rt route) {
	obj, err := decodeFor(w, r, rt, rt.Resource.Resource)
	if err != nil {
		writeError(w, err)
		return
	}
	ns, ok := obj.(*api.Namespace)
	if !ok {
		writeError(w, api.NewMethodNotSupported(rt.gr(), "finalize"))
		return
	}
	// ns was decoded for this request, and out is only encoded.
	out, err := s.reg.FinalizeNamespace(registry.HandOver(r.Context()), ns)
	if err != nil {
		writeError(w, err)
		return
	}
	writeObject(w, r, http.StatusOK, out)
}
