package apiserver

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"strconv"
	"strings"

	jsonpatch "github.com/evanphx/json-patch/v5"

	"github.com/converge-dev/converge/impl/api"
)

// JSON patch (RFC 6902) and JSON merge patch (RFC 7386) are
// github.com/evanphx/json-patch, as in kube-apiserver, with its limits
// and its Statuses (k8s.io/apiserver pkg/endpoints/handlers/patch.go).

// maxJSONPatchOps bounds the operations of one JSON patch, as
// kube-apiserver's maxJSONPatchOperations.
const maxJSONPatchOps = 10000

// jsonPatchMaxCopyBytes bounds how much a JSON patch's copy operations may
// grow the document, as kube-apiserver's JSONPatchMaxCopyBytes (3 MiB).
const jsonPatchMaxCopyBytes = 3 << 20

// jsonPatchOptions are kube-apiserver's: negative indices count from the
// end of an array (json-patch's default, which kube-apiserver keeps and
// tests), copies are bounded, a missing path is an error.
func jsonPatchOptions() *jsonpatch.ApplyOptions {
	o := jsonpatch.NewApplyOptions()
	o.SupportNegativeIndices = true
	o.AccumulatedCopySizeLimit = jsonPatchMaxCopyBytes
	o.AllowMissingPathOnRemove = false
	o.EnsurePathExistsOnAdd = false
	return o
}

// decodeJSONPatch parses a JSON patch: 400 when malformed (not a list, an
// unknown op, a field of the wrong type), 413 past maxJSONPatchOps.
func decodeJSONPatch(body []byte) (jsonpatch.Patch, error) {
	ops, err := jsonpatch.DecodePatch(body)
	if err != nil {
		return nil, api.NewBadRequest(err.Error())
	}
	if len(ops) > maxJSONPatchOps {
		return nil, api.NewRequestEntityTooLarge(fmt.Sprintf(
			"The allowed maximum operations in a JSON patch is %d, got %d", maxJSONPatchOps, len(ops)))
	}
	return ops, nil
}

// applyJSONPatch applies a JSON patch to doc; an operation that does not
// apply (a failed test, a missing path, an index out of bounds, copies
// past the limit) fails the patch with kube-apiserver's 422.
func applyJSONPatch(doc, patch []byte) ([]byte, error) {
	ops, err := decodeJSONPatch(patch)
	if err != nil {
		return nil, err
	}
	out, err := applyOps(ops, doc)
	if errors.Is(err, jsonpatch.ErrMissing) {
		out, err = applyReplacingMissingKeys(doc, ops)
	}
	if err != nil {
		return nil, unprocessablePatch()
	}
	return out, nil
}

// applyOps applies ops to doc. json-patch v5 panics on some operations
// it should refuse (a "test" of the whole document with no value): such a
// patch does not apply, like any other the library refuses.
func applyOps(ops jsonpatch.Patch, doc []byte) (out []byte, err error) {
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, fmt.Errorf("apiserver: json patch: %v", r)
		}
	}()
	return ops.ApplyWithOptions(doc, jsonPatchOptions())
}

// applyReplacingMissingKeys applies ops one by one, a replace of a key its
// object lacks setting the key, as kube-apiserver's json-patch (v4) does
// and v5 does not. kubectl rollout undo relies on it: it replaces
// /metadata/annotations whether or not the object has any. Only a patch
// that failed on a missing path comes here.
func applyReplacingMissingKeys(doc []byte, ops jsonpatch.Patch) ([]byte, error) {
	for _, op := range ops {
		next, err := applyOps(jsonpatch.Patch{op}, doc)
		if errors.Is(err, jsonpatch.ErrMissing) && op.Kind() == "replace" {
			if path, perr := op.Path(); perr == nil && parentIsObjectWithout(doc, path) {
				add := maps.Clone(op)
				kind := json.RawMessage(`"add"`)
				add["op"] = &kind
				next, err = jsonpatch.Patch{add}.ApplyWithOptions(doc, jsonPatchOptions())
			}
		}
		if err != nil {
			return nil, err
		}
		doc = next
	}
	return doc, nil
}

// parentIsObjectWithout reports whether the JSON pointer path names a key
// that an existing object of doc lacks.
func parentIsObjectWithout(doc []byte, path string) bool {
	var node any
	if json.Unmarshal(doc, &node) != nil || !strings.HasPrefix(path, "/") {
		return false
	}
	tokens := strings.Split(path[1:], "/")
	for i, t := range tokens {
		t = strings.ReplaceAll(strings.ReplaceAll(t, "~1", "/"), "~0", "~")
		switch n := node.(type) {
		case map[string]any:
			child, ok := n[t]
			if i == len(tokens)-1 {
				return !ok
			}
			if !ok {
				return false
			}
			node = child
		case []any:
			k, err := strconv.Atoi(t)
			if err != nil || k < 0 || k >= len(n) || i == len(tokens)-1 {
				return false
			}
			node = n[k]
		default:
			return false
		}
	}
	return false
}

// applyMergePatch applies a JSON merge patch to doc; a patch that is not a
// JSON object is 400.
func applyMergePatch(doc, patch []byte) ([]byte, error) {
	out, err := jsonpatch.MergePatch(doc, patch)
	switch {
	case errors.Is(err, jsonpatch.ErrBadJSONPatch):
		return nil, api.NewBadRequest(err.Error())
	case err != nil:
		return nil, api.NewInternalError(err)
	}
	return out, nil
}
