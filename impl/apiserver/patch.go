package apiserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"

	"github.com/converge-dev/converge/impl/api"
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
	ctx := r.Context()
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
	body, mt, err := readBody(r, patchTypes...)
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
		out, retry, err := patchOnce(mt, body, rt, t, managerFromRequest(r))
		if err != nil && retry && attempt < maxPatchRetries {
			continue
		}
		if err != nil {
			writeError(w, err)
			return
		}
		writeJSON(w, http.StatusOK, out)
		return
	}
}

// patchOnce is one read-patch-write; retry says a conflict may go away on
// a fresh read.
func patchOnce(mt string, body []byte, rt route, t patchTarget, manager string) (api.Object, bool, error) {
	cur, err := t.get()
	if err != nil {
		return nil, false, err
	}
	curJSON, err := api.Marshal(cur)
	if err != nil {
		return nil, false, api.NewInternalError(err)
	}
	patched, err := applyPatch(mt, curJSON, body)
	if err != nil {
		return nil, false, err
	}
	obj, err := api.Decode(t.kind, patched)
	if err != nil {
		return nil, false, err
	}
	if err := checkIdentity(obj, rt); err != nil {
		return nil, false, err
	}
	curRV := cur.GetObjectMeta().ResourceVersion
	m := obj.GetObjectMeta()
	ownRV := m.ResourceVersion != curRV
	if m.ResourceVersion == "" {
		m.ResourceVersion = curRV
	}
	if t.kind == rt.Resource.Resource && rt.Subresource == "" {
		recordUpdate(cur, obj, manager) // field ownership, for server-side apply conflicts
	}
	out, err := t.write(obj)
	if err != nil {
		return nil, !ownRV && api.IsConflict(err), err
	}
	return out, false, nil
}

// checkPatchSyntax rejects a malformed patch before anything is read.
func checkPatchSyntax(mt string, body []byte) error {
	if mt == jsonPatchType {
		_, err := decodeJSONPatch(body)
		return err
	}
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil || m == nil {
		return api.NewBadRequest(fmt.Sprintf("the patch is not a JSON object: %v", errOrNull(err)))
	}
	return nil
}

func errOrNull(err error) any {
	if err == nil {
		return "null"
	}
	return err
}

// applyPatch patches the JSON document doc.
func applyPatch(mt string, doc, patch []byte) ([]byte, error) {
	var target any
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	if err := dec.Decode(&target); err != nil {
		return nil, api.NewInternalError(err)
	}
	var out any
	switch mt {
	case jsonPatchType:
		ops, err := decodeJSONPatch(patch)
		if err != nil {
			return nil, err
		}
		if out, err = applyJSONPatch(target, ops); err != nil {
			return nil, invalidPatch(err)
		}
	case mergePatchType, strategicPatchType:
		var p any
		dec := json.NewDecoder(bytes.NewReader(patch))
		dec.UseNumber()
		if err := dec.Decode(&p); err != nil {
			return nil, api.NewBadRequest(fmt.Sprintf("malformed patch: %v", err))
		}
		pm, ok := p.(map[string]any)
		if !ok {
			return nil, api.NewBadRequest("the patch must be a JSON object")
		}
		tm, _ := target.(map[string]any)
		if mt == mergePatchType {
			out = mergePatch(tm, pm)
		} else {
			var err error
			if out, err = strategicMerge(tm, pm, nil); err != nil {
				return nil, invalidPatch(err)
			}
		}
	default:
		return nil, api.NewUnsupportedMediaType(patchTypes)
	}
	b, err := json.Marshal(out)
	if err != nil {
		return nil, api.NewBadRequest(fmt.Sprintf("the patched object is not JSON: %v", err))
	}
	return b, nil
}

// invalidPatch is Kubernetes' 422 for a patch that cannot be applied (a
// failed json-patch test, a missing path).
func invalidPatch(err error) error {
	se := api.NewBadRequest(err.Error())
	se.Status.Code = http.StatusUnprocessableEntity
	se.Status.Reason = api.StatusReasonInvalid
	return se
}

// mergePatch is RFC 7386 JSON merge patch: objects merge, null deletes,
// anything else replaces.
func mergePatch(target map[string]any, patch map[string]any) map[string]any {
	if target == nil {
		target = map[string]any{}
	}
	for k, pv := range patch {
		if pv == nil {
			delete(target, k)
			continue
		}
		if pm, ok := pv.(map[string]any); ok {
			tm, _ := target[k].(map[string]any)
			target[k] = mergePatch(tm, pm)
			continue
		}
		target[k] = pv
	}
	return target
}
