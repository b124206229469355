// Package model is the executable specification of converge: a pure,
// deterministic state machine of a Kubernetes-style control plane (the seed
// flow: Deployment -> ReplicaSet -> Pods -> scheduler -> kubelet -> runtime
// -> endpoints -> kube-proxy, plus node lifecycle and garbage collection).
//
// Guarantees:
//   - Standard library only; no goroutines, clocks, randomness or I/O.
//     Time is a logical clock that only the tick action advances.
//   - One way in: State.Step(Action) -> Result, with the writes as data.
//     The same action sequence always gives the same writes, names and
//     states. Step changes the state in place; Clone copies it.
//   - The store is a global revision with compare-and-swap writes against
//     the version the writer saw; a conflict fails the write and requeues
//     the key, as with etcd.
//   - Each component decides from its own view only: the events delivered
//     to its informers (one per watched kind, not ordered against each
//     other), its work queue and its expectations. Live reads are made only
//     where Kubernetes makes them (the garbage collector's owner check, the
//     node lifecycle controller's force delete, the kubelet's heartbeat).
//   - Faults are actions: held-back events, dropped watches and compaction
//     (relist), crash and restart (optionally after the k-th write of a
//     reconcile), container crash, node partition.
//   - Checker checks the safety invariants after every step; Quiesce and
//     Converged check convergence once faults stop. Snapshot is the
//     observable state the implementation is projected onto.
//
// Names are derived (naming.go), never random: pod-template-hash from the
// template, generated names from a per-prefix counter the store keeps.
package model
