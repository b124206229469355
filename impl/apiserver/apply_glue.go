package apiserver

import (
	"bytes"
	"io"
	"net/http"
	"strings"

	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/impl/registry"
)

// serverSideApply serves PATCH with Content-Type application/apply-patch+yaml:
// ?fieldManager= is required, ?force=true takes over conflicting fields.
// It reads the body itself; a caller that already read it must use
// serverSideApplyBody.
func (s *Server) serverSideApply(w http.ResponseWriter, r *http.Request, rt route) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		writeError(w, api.NewBadRequest("apiserver: reading the body: "+err.Error()))
		return
	}
	s.serverSideApplyBody(w, r, rt, body)
}

// serverSideApplyBody is serverSideApply with the body already read. An
// apply reaches the object itself or its status subresource; an apply to
// status cannot create the object.
func (s *Server) serverSideApplyBody(w http.ResponseWriter, r *http.Request, rt route, body []byte) {
	q := r.URL.Query()
	manager := q.Get("fieldManager")
	force := q.Get("force") == "true"
	status := rt.Subresource == "status"
	if rt.Subresource != "" && !status {
		writeError(w, api.NewMethodNotSupported(rt.gr(), "apply to "+rt.Subresource))
		return
	}
	if len(strings.TrimSpace(string(body))) == 0 {
		writeError(w, api.NewBadRequest("the request body is empty"))
		return
	}
	ctx := r.Context()
	for attempt := 0; ; attempt++ {
		live, err := s.reg.Get(ctx, rt.Resource.Resource, rt.Namespace, rt.Name)
		if err != nil && (status || !api.IsNotFound(err)) {
			writeError(w, err)
			return
		}
		if err != nil {
			live = nil
		}
		obj, err := applyConfiguration(rt.Resource, live, body, manager, rt.Subresource, force)
		if err != nil {
			writeError(w, err)
			return
		}
		if api.Meta(obj).Name == "" {
			api.Meta(obj).Name = rt.Name
		}
		if err := checkIdentity(obj, rt); err != nil {
			writeError(w, err)
			return
		}
		if live != nil && unchangedBy(live, obj) {
			// As in Kubernetes, an apply that changes nothing writes
			// nothing: the resourceVersion stays.
			writeObject(w, r, http.StatusOK, live)
			return
		}
		var out api.Object
		code := http.StatusOK
		switch {
		case live == nil:
			api.Meta(obj).ResourceVersion = ""
			out, err = s.reg.Create(ctx, obj)
			code = http.StatusCreated
		case status:
			// The registry keeps the stored metadata of a status write
			// but for the ownership the apply recorded.
			api.Meta(obj).ResourceVersion = api.Meta(live).ResourceVersion
			out, err = s.reg.UpdateStatus(registry.WithManagedFields(ctx, appliedFields), obj)
		default:
			api.Meta(obj).ResourceVersion = api.Meta(live).ResourceVersion
			out, err = s.reg.Update(ctx, obj)
		}
		// Lost a race with another writer: apply again on a fresh read.
		if (api.IsConflict(err) || api.IsAlreadyExists(err)) && attempt < maxPatchRetries {
			continue
		}
		if err != nil {
			writeError(w, err)
			return
		}
		writeObject(w, r, code, out)
		return
	}
}

// appliedFields keeps the ownership an apply recorded in its object.
func appliedFields(_, applied api.Object) []api.ManagedFieldsEntry {
	return api.Meta(applied).ManagedFields
}

// unchangedBy reports whether writing obj over live would store what is
// stored: obj is defaulted as the registry would, and resourceVersions
// are not compared.
func unchangedBy(live, obj api.Object) bool {
	api.Default(obj)
	a, b := api.DeepCopy(live), api.DeepCopy(obj)
	api.Meta(a).ResourceVersion, api.Meta(b).ResourceVersion = "", ""
	ja, errA := api.Marshal(a)
	jb, errB := api.Marshal(b)
	return errA == nil && errB == nil && bytes.Equal(ja, jb)
}
