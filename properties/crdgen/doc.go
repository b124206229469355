// Package crdgen draws custom resources from a CRD version's structural
// schema with rapid generators, so that properties can exercise a
// controller with any object a user could write, and shrink a failure to
// the smallest such object.
//
// Guarantees:
//   - Every drawn object, after the apiserver's Prepare (pruning and
//     defaulting), passes the version's create Validate: OpenAPI schema,
//     list types, embedded resources and CEL rules. Transition rules
//     (oldSelf) do not run on create and are not considered.
//   - The object is what a user writes, not what the apiserver stores:
//     optional fields, including those with a schema default, are drawn
//     absent or present, and no defaults are filled in. Numbers are in the
//     apiserver's JSON form (int64 for integral numbers, float64 otherwise).
//   - Draws shrink toward the smallest object: optional fields absent,
//     collections at their minimum size, the first enum value, integers
//     toward 0 or the bound nearest it, the simplest string a pattern
//     allows.
//   - The same seed draws the same objects.
//
// CEL rules cannot be turned into generators, so validity is reached by
// rejection: a draw that fails Validate is drawn again, up to WithRetries
// times, and then the property fails with the error that kept recurring,
// naming the x-kubernetes-validations rule behind it. The fix is to
// constrain the fields the rule reads with WithField or WithFilter.
// rapid's own Filter is not used for this: it gives up after a handful of
// tries and turns the check into an invalid (skipped) case with no hint of
// the rule. While shrinking, a candidate whose draws all fail is not the
// property's failure and rapid discards it, so rejection does not disturb
// shrinking.
//
// Field paths name schema nodes: dot-separated property names from the
// object's root ("spec.replicas"), "[*]" after an array for its items
// ("spec.ports[*].name"), ".*" for the values of an additionalProperties
// map ("spec.labels.*"). A path may name a key the schema does not declare
// in an object that preserves unknown fields ("spec.config.mode").
//
// Not generated from the schema (rejection by Validate covers them):
// allOf, anyOf, oneOf and not beyond the int-or-string patterns;
// minProperties and maxProperties on objects with declared properties;
// formats with checksums (isbn, creditcard); patterns that are not RE2
// (they cannot reach a served CRD anyway). Narrower than the schema, to
// keep objects small: a pattern yields whole matches only, unbounded
// strings have at most 16 runes, map and unknown keys are short
// lower-case words, free-form JSON has no floats, embedded resources
// take apiVersion and kind from a short list. Left to the caller:
// metadata beyond name and namespace, and status, the controller's.
package crdgen
