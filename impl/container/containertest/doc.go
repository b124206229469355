// Package containertest is the conformance suite every container.Runtime
// passes: the in-memory fake and the containerd runtime run the same tests.
//
// Guarantees of the suite:
//   - It uses only the Runtime interface plus the crash hook it is given, so
//     a passing runtime is interchangeable with the others for a kubelet.
//   - Each subtest uses node names and container ids of its own, so the
//     subtests may share one backend (one FakeHost, one containerd daemon)
//     and a second run in the same process does not collide.
//   - Every container a subtest starts is stopped (SIGKILL) and removed when
//     the subtest ends, even when it fails.
//   - It waits for asynchronous effects (a crash becoming visible) by
//     polling with a generous deadline; it asserts no durations.
package containertest
