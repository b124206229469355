// Package replicaset is a worked example of a user's controller: a
// ReplicaSet controller written natively against converge's API (a
// client.Client and informer caches), checked by properties.CheckController
// in place of the built-in replicaset controller. own_component_test.go
// checks it as a component of its own instead, with its own watches and
// namespace/name keys, beside the built-in that properties.Disabled silences.
//
// Guarantees of ReplicaSets (the built-in's semantics, see model/replicaset.go):
//   - It creates or deletes pods until a ReplicaSet has spec.replicas
//     non-terminating pods it controls; pods get generateName "<rs>-", the
//     template's labels and spec, a controller ownerReference to the
//     ReplicaSet and the requests cpu 100m, memory 128Mi.
//   - Expectations: after a create or a delete it acts again only once its
//     pod cache shows every pod it wrote at least as new as its write (or
//     the pod is gone for good), so a stale cache never makes it create
//     pods twice.
//   - Deletes carry a resourceVersion precondition and pick unscheduled
//     pods first, then not-ready ones, then the newest names.
//   - Status (replicas, readyReplicas) is written only when no create or
//     delete is needed, with the cached resourceVersion as precondition.
//   - A crash loses the expectations; the restarted controller starts from
//     freshly listed caches, so nothing is owed.
package replicaset
