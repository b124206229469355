// Package container defines the container runtime a kubelet drives, and an
// in-memory fake of it. The real one, over containerd, is in the containerd
// sub-package; containertest holds the conformance suite both pass.
//
// Guarantees of every Runtime:
//   - One runtime serves one node and sees only that node's containers;
//     List is sorted by ID.
//   - Start is create+start in one call. A missing image is not a crash:
//     Start returns a Waiting/ErrImagePull status with ErrImageNotPresent and
//     stores nothing. Bad specs are rejected with ErrInvalidSpec and change
//     nothing.
//   - Start is idempotent on the ID: repeating it for the same container
//     (node, pod uid, name, image, attempt) returns the current status.
//     The kubelet puts the attempt in the ID, so a restart is a new ID.
//   - Stop sends SIGTERM, then SIGKILL after grace, and is a no-op on an
//     exited or created container. Remove refuses a running container
//     (ErrRunning). Both answer ErrNotFound for an unknown ID.
//   - An exited container keeps its exit code, reason and times until
//     Remove: Reason is Completed for code 0 and Error otherwise (OOMKilled
//     is only injected by the fake). A process killed by a signal exits
//     with 128+signal, so SIGKILL shows as 137.
//   - Everything lives in the runtime, not in the kubelet: a restarted
//     kubelet adopts its containers by calling List. The identity fields of
//     ContainerStatus (node, pod namespace/name/uid, name, image, attempt)
//     are stored with the container for that purpose.
//   - Every runtime gives the process POD_NAME, POD_NAMESPACE, POD_IP and
//     PORT (the first port) before the spec's own variables (ProcessEnv).
//
// The fake (FakeHost, Fake) is deterministic: no goroutines, no wall clock
// (time comes from the clock it is given), no randomness, sorted outputs. It
// models the converge-echo workload: SIGTERM exits 0 unless
// ECHO_IGNORE_SIGTERM=1. Tests inject crashes (Crash, OOMKill), control which
// images are present (AddImage, RemoveImage) and read an operation log (Log).
package container
