// Package storetest gives tests a real etcd-backed store.Store cheaply.
//
// Guarantees:
//   - The first call of Store, Client, GRPCClient or Endpoints in a test binary starts one
//     embedded etcd (no fsync, short ticks, silent, in a temporary directory);
//     every later call reuses it. A failed start fails every caller's test
//     with the same error.
//   - Each Store call returns a store under a fresh key prefix ("/t/<n>"), so
//     tests sharing the etcd never see each other's objects and may run in
//     parallel. A Store costs no etcd round-trip.
//   - Revisions and compaction are shared by the whole etcd: revisions seen by
//     one test jump by other tests' writes, and a Compact discards every
//     test's history. A test that compacts should use Isolated, which starts
//     an etcd of its own and stops it when the test ends.
//   - History older than a minute is compacted every minute, so that a long
//     campaign does not fill etcd's database; a campaign also drops each
//     check's store when the check ends (store.Store.Drop).
//   - Stores talk to etcd through its in-process client (Client), as
//     converge's embedded mode does; GRPCClient reaches the same etcd over
//     its gRPC endpoint, as an external cluster is reached.
//   - Main runs the tests, then closes the shared clients and etcd and removes
//     the temporary directory. Without it the directory is left behind.
//   - The shared clients belong to the package: tests must not close them.
package storetest
