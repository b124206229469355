// Package store keeps converge's objects in etcd. It is the only layer that
// talks to etcd for objects; values are opaque bytes (JSON written by the API
// types), and a resourceVersion is etcd's mod revision.
//
// Layout: an object lives at <prefix>/registry/<resource>/<namespace>/<name>,
// or <prefix>/registry/<resource>/<name> when it is cluster-scoped (namespace
// ""). The generateName counter of (resource, namespace, generatePrefix) lives at
// <prefix>/generatename/<resource>/<namespace>/<generatePrefix> (the namespace
// segment likewise omitted when ""). prefix isolates tests sharing one etcd and
// is "" in production.
//
// Guarantees:
//   - Every write is one etcd transaction. A write that fails (ErrAlreadyExists,
//     ErrConflict, ErrNotFound, a render error, an invalid key) changes nothing.
//   - Update and Delete with expectRev != 0 succeed only if the object's mod
//     revision is expectRev; otherwise ErrConflict if the object exists and
//     ErrNotFound if it does not. expectRev 0 is unconditional but never
//     creates.
//   - A returned revision is the revision of that write: the object's new Rev
//     after Create/Update, the deletion revision after Delete.
//   - CreateGenerated names the n-th object of a (resource, namespace,
//     generatePrefix) model.GeneratedName(generatePrefix, n), n = 0, 1, 2, ...
//     The store hands the numbers out (each once) and writes the counter in
//     the same transaction as the create, so names are deterministic one
//     create after another, distinct under concurrency, and a store that
//     creates alone under its prefix never reuses a name after a delete. A
//     name that already exists (created by name, or by another store) is
//     skipped. Creates committed out of order can leave the stored counter
//     behind, and another store's creates can leave this store's count
//     behind; the store behind skips the names still taken, but may give
//     again the name of an object deleted since.
//   - List returns a consistent snapshot at one revision (listRev), sorted by
//     key, across all of its pages. A continue token pins the snapshot's
//     revision; it fails with ErrGone once that revision is compacted.
//   - Watch delivers every change with revision > fromRev under the resource
//     (and namespace, if given), each exactly once, in etcd's revision order,
//     and never drops an event: a slow reader slows the stream. fromRev 0 means
//     all retained history. If the history is compacted (at the start or
//     mid-stream) the stream ends with one StoreEvent whose Err wraps ErrGone; any
//     other terminal failure also ends it with one Err event. Cancelling ctx
//     closes the channel without an Err event.
//   - Compact is cluster-wide: it discards history for every prefix sharing the
//     etcd. Compacting to a revision at or below one already compacted is a
//     no-op.
//   - Drop deletes every key under the store's prefix and nothing outside
//     it ("/t/1" never takes "/t/10"'s keys); a store without a prefix
//     refuses with ErrInvalid.
//   - Key components must be non-empty (resource, name) and contain no '/';
//     otherwise the call fails with ErrInvalidKey.
package store
