// Package storetest gives tests a real etcd-backed store.Store cheaply.
//
// Guarantees:
//   - The first call of Store, Client or Endpoints in a test binary starts one
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
//   - Main runs the tests, then closes the shared client and etcd and removes
//     the temporary directory. Without it the directory is left behind.
//   - The shared client belongs to the package: tests must not close it.
package storetest
