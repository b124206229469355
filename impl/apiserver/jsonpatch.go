package apiserver

import (
	"errors"
	"fmt"

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
	out, err := ops.ApplyWithOptions(doc, jsonPatchOptions())
	if err != nil {
		return nil, unprocessablePatch()
	}
	return out, nil
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
