// Package etcd starts the etcd that converge runs on, or dials an external one.
//
// StartEmbedded runs a single-member etcd inside the current process
// (go.etcd.io/etcd/server/v3/embed); Dial connects to a cluster that someone
// else runs (the --etcd-endpoints flag). Both hand out plain clientv3 clients;
// only impl/store uses them for objects. converge's own code reaches an
// embedded member through Embedded.InProcessClient, which calls the
// member's handlers without a socket; Embedded.Client dials it over gRPC.
//
// Guarantees:
//   - StartEmbedded returns only once the member is ready to serve linearizable
//     requests, or fails with an error wrapping ErrNotReady (after
//     Config.StartTimeout) or the start-up error. On failure nothing is left
//     running.
//   - Data written to an Embedded survives Close and a later StartEmbedded on the
//     same DataDir. With Fsync set that also holds across a machine crash;
//     without it (UnsafeNoFsync, for tests) only across a clean Close.
//   - An empty ClientURL or PeerURL picks a free 127.0.0.1 port; the URLs the
//     member advertises are the ones it really listens on.
//   - Close is idempotent and returns only after the server has stopped and its
//     listeners are closed. It does not remove DataDir: the caller owns it.
//   - The embedded server is silent unless Config.Logger is set.
//   - Dial fails with an error wrapping ErrUnreachable when no endpoint answers a
//     linearizable read within the dial timeout, and closes the client it made.
//   - Clients returned by Embedded.Client, Embedded.InProcessClient and Dial
//     belong to the caller, who closes them.
//   - CompactHistory compacts, every interval, up to the revision of the
//     interval before, never newer: for etcds that serve whole campaigns.
//   - An in-process client sees exactly what a gRPC client sees: the same
//     revisions, compare failures, watch events and compaction errors. Its
//     watch streams never block a sender, so an unread watch cannot stall
//     the member's other watchers.
package etcd
