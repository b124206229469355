package apiserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"

	jsonpatch "github.com/evanphx/json-patch/v5"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kjson "sigs.k8s.io/json"

	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/impl/registry"
)

// Patch media types.
const (
	mergePatchType     = "application/merge-patch+json"
	jsonPatchType      = "application/json-patch+json"
	strategicPatchType = "application/strategic-merge-patch+json"
	applyPatchType     = "application/apply-patch+yaml"
)

var patchTypes = []string{jsonPatchType, mergePatchType, strategicPatchType, applyPatchType}

// maxPatchRetries bounds the retries of a patch that lost a race with
// another writer and carries no resourceVersion of its own.
const maxPatchRetries = 5

// patchTarget is what a patch reads and writes: the object itself, its
// status, or its scale.
type patchTarget struct {
	kind  string // what api.Decode reads the patched document as
	get   func() (api.Object, error)
	write func(api.Object) (api.Object, error)
}

func (s *Server) patch(w http.ResponseWriter, r *http.Request, rt route) {
	ctx := registry.WithManagedFields(r.Context(), fieldRecorder(managerFromRequest(r), ""))
	s.servePatch(w, r, rt, patchTarget{
		kind:  rt.Resource.Resource,
		get:   func() (api.Object, error) { return s.reg.Get(ctx, rt.Resource.Resource, rt.Namespace, rt.Name) },
		write: func(o api.Object) (api.Object, error) { return s.reg.Update(ctx, o) },
	})
}

// servePatch applies the request's patch to t: read, patch as JSON,
// decode strictly, write with the read's resourceVersion as precondition.
// A lost race is retried unless the patch set a resourceVersion itself.
func (s *Server) servePatch(w http.ResponseWriter, r *http.Request, rt route, t patchTarget) {
	types := patchTypes
	if isCustom(rt) {
		// Custom resources have no patch strategies: as upstream, a
		// strategic merge patch is an unsupported media type.
		types = slices.DeleteFunc(slices.Clone(types), func(t string) bool { return t == strategicPatchType })
	}
	body, mt, err := readBody(r, types...)
	if err != nil {
		writeError(w, err)
		return
	}
	if mt == applyPatchType {
		r.Body = io.NopCloser(bytes.NewReader(body)) // read again by apply
		s.serverSideApply(w, r, rt)
		return
	}
	if err := checkPatchSyntax(mt, body); err != nil {
		writeError(w, err)
		return
	}
	for attempt := 0; ; attempt++ {
		out, retry, err := patchOnce(mt, body, rt, t, func(o api.Object, strict []error, patched []byte) error {
			return validateFields(w, r, o, strict, patched)
		})
		if err != nil && retry && attempt < maxPatchRetries {
			continue
		}
		if err != nil {
			writeError(w, err)
			return
		}
		writeObject(w, r, http.StatusOK, out)
		return
	}
}

// patchOnce is one read-patch-write; retry says a conflict may go away on
// a fresh read.
func patchOnce(mt string, body []byte, rt route, t patchTarget, check func(api.Object, []error, []byte) error) (api.Object, bool, error) {
	cur, err := t.get()
	if err != nil {
		return nil, false, err
	}
	curJSON, err := api.Marshal(servedAs(cur, rt.Resource.Version))
	if err != nil {
		return nil, false, api.NewInternalError(err)
	}
	patched, err := applyPatch(mt, t.kind, curJSON, body)
	if err != nil {
		return nil, false, err
	}
	obj, strict, err := api.DecodeFields(t.kind, rt.Resource.APIVersion(), patched)
	if err != nil {
		return nil, false, err
	}
	if err := checkIdentity(obj, rt); err != nil {
		return nil, false, err
	}
	if err := check(obj, strict, patched); err != nil {
		return nil, false, err
	}
	curRV := api.Meta(cur).ResourceVersion
	m := api.Meta(obj)
	ownRV := m.ResourceVersion != curRV
	if m.ResourceVersion == "" {
		m.ResourceVersion = curRV
	}
	out, err := t.write(obj)
	if err != nil {
		return nil, !ownRV && api.IsConflict(err), err
	}
	return out, false, nil
}

// checkPatchSyntax rejects a malformed patch before anything is read, as
// kube-apiserver does: a body that is not JSON, a JSON patch that does not
// decode (or has too many operations), a merge patch that is not an
// object, a strategic patch that is neither an object nor null.
func checkPatchSyntax(mt string, body []byte) error {
	if !json.Valid(body) {
		return api.NewBadRequest("invalid JSON patch")
	}
	switch mt {
	case jsonPatchType:
		_, err := decodeJSONPatch(body)
		return err
	case mergePatchType:
		var m map[string]any
		if _, err := kjson.UnmarshalStrict(body, &m); err != nil {
			return api.NewBadRequest(fmt.Sprintf("error decoding patch: %v", err))
		}
		if m == nil {
			return api.NewBadRequest(jsonpatch.ErrBadJSONPatch.Error())
		}
	case strategicPatchType:
		var m map[string]any
		if _, err := kjson.UnmarshalStrict(body, &m); err != nil {
			return api.NewBadRequest(err.Error())
		}
	}
	return nil
}

// applyPatch patches doc, a JSON object of resource (which may name a
// subresource, "deployments/scale": its schema drives a strategic merge).
func applyPatch(mt, resource string, doc, patch []byte) ([]byte, error) {
	switch mt {
	case jsonPatchType:
		return applyJSONPatch(doc, patch)
	case mergePatchType:
		return applyMergePatch(doc, patch)
	case strategicPatchType:
		return strategicMergePatch(resource, doc, patch)
	}
	return nil, api.NewUnsupportedMediaType(patchTypes)
}

// unprocessablePatch is kube-apiserver's answer to a patch that does not
// apply (a failed JSON patch test, a missing path): 422 with the generic
// message of NewGenericServerResponse, the library's error left out.
func unprocessablePatch() error {
	return &api.StatusError{Status: api.Status{
		TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   api.StatusFailure,
		Code:     http.StatusUnprocessableEntity,
		Reason:   api.StatusReasonInvalid,
		Message:  "the server rejected our request due to an error in our request",
		Details:  &api.StatusDetails{},
	}}
}

// invalidPatch is 422 Invalid with message, for a patch the strategic
// merge library rejects without a Status of its own.
func invalidPatch(message string) error {
	se := api.NewBadRequest(message)
	se.Status.Code = http.StatusUnprocessableEntity
	se.Status.Reason = api.StatusReasonInvalid
	return se
}
