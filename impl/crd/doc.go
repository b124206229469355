// Package crd is converge's schema layer for CustomResourceDefinitions and
// custom resources. It holds no HTTP and no etcd: it wraps the machinery of
// k8s.io/apiextensions-apiserver (the code behind kube-apiserver's CRD
// support) so that converge accepts, rejects, prunes, defaults and prints
// exactly what Kubernetes does, with Kubernetes' field paths and messages.
//
// Nothing here re-implements a rule. Each function names the upstream code it
// calls; where upstream keeps the glue unexported (the decode-time coercion in
// customresource_handler.go, the default printer columns in helpers.go), the
// glue here calls the same exported functions in the same order.
//
// Guarantees:
//   - CRD-level functions take and return apiextensions.k8s.io/v1 objects; the
//     internal (hub) version that upstream validates is an implementation
//     detail, converted to and from with upstream's own scheme.
//   - A Version is compiled once per CRD version (structural schema, OpenAPI
//     validators, CEL programs, printer columns) and is safe for concurrent
//     use; it never mutates the CRD it was compiled from.
//   - Custom resources travel as unstructured content (map[string]any as
//     encoding/json or k8s.io/apimachinery produces it). Functions that
//     prepare an object change it in place, as upstream's decoder and
//     strategies do; Validate* functions never change their inputs.
//   - Field errors come back as upstream produces them, ready for
//     apierrors.NewInvalid.
//
// The request pipeline, in kube-apiserver's order: Prepare (the decoder's
// pruning and defaulting), then Validate on create, ValidateUpdate on
// update, ValidateStatusUpdate through the status subresource. What
// upstream's strategies prepare before validating (status kept or
// dropped, generation) the registry does for every kind alike. CRDs:
// Default and PrepareForCreate, then Validate, ValidateUpdate or
// ValidateStatusUpdate.
package crd
