// Package controllertest holds test doubles for the controller runtime: an
// in-memory ListWatcher whose revisions, watch failures and compactions a
// test controls, and a manual Clock.
//
// Guarantees:
//   - FakeListWatcher behaves like the store behind the apiserver: one
//     global revision, bumped by every write; List returns a consistent
//     snapshot with its revision; Watch from revision r replays every
//     change after r, then streams live, in revision order, and never
//     blocks a writer.
//   - A watch or list from a revision older than the last Compact fails
//     with a 410 for which api.IsResourceExpired holds.
//   - Stored and delivered objects are deep copies: a test mutating its
//     own object changes nothing.
//   - FakeClock only moves on Advance; After channels fire in deadline order.
package controllertest
