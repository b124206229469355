// Package fieldpath holds the sets of field paths that server-side apply
// records per manager in metadata.managedFields, in Kubernetes' FieldsV1
// spelling.
//
// Guarantees:
//   - A Path is a sequence of FieldsV1 elements: "f:name" (a field or map
//     key), `k:{"name":"nginx"}` (an item of a keyed list, key fields in
//     sorted order), `v:"x"` (an item of a set list).
//   - MarshalFieldsV1 and ParseFieldsV1 round-trip: a member with members
//     below it is written as ".": {} inside its node, a member without as {}.
//     The output is deterministic (keys sorted).
//   - ParseFieldsV1 never panics; malformed input is ErrMalformed, wrapped.
//   - Set operations never mutate their arguments.
package fieldpath
