// Package cluster wires the real control plane together over etcd and
// drives it in two ways over one copy of each component's code
// (ARCHITECTURE.md, contract 4: two drivers, one component code):
//
//   - Stepped takes the model's action alphabet, one action at a time:
//     delivering an event waits until etcd has sent it, then applies it;
//     reconciling runs one key synchronously; faults are real (a held-back
//     watch, a dropped watch and a relist, a crash that throws away the
//     cache, queue and expectations, a crash after the k-th write, a
//     transient 429/503/504 on a component's next API call); time is a
//     logical clock.
//   - A user's controller (ControllerSpec) runs under controller-runtime's
//     rules: after a failed write its reconcile goes on as its code
//     decides, and only a crash point stops its writes; its return value
//     alone decides the retry (an error or Requeue retries with backoff,
//     RequeueAfter is a timer, on the logical clock in stepped mode, and
//     nil forgets the key). A delete that finds its object already
//     terminating, and leaves it so, is recorded as no write.
//   - Running starts every component with goroutines, real watches and
//     real timers; `converge demo` and `converge up` use it.
//
// A component is the model's decision code (model.Reconcile over a
// model.Memory) plus this package's plumbing: informers whose events are
// projected into the memory, a work queue, and a Writer that turns the
// decisions into API calls through a client.Client.
//
// Guarantees:
//   - In stepped mode nothing happens between actions: no goroutine writes,
//     and an action returns only when its effects are in etcd.
//   - The same action sequence makes the same writes in the same order with
//     the same names as the model (checked by the lockstep property).
//   - Project returns the observable state as a model.Snapshot.
//   - On a real runtime (running mode, not the fake) the kubelet's
//     decisions are held back where real processes need time: a pod turns
//     ready only once its HTTP readiness probe passes, a crashed container
//     restarts after a back-off, a terminating pod's container gets its
//     grace period, a start whose pod IP another pod of the node holds is
//     retried, and a missing image is the pod's waiting reason. Containers
//     get the pod's IP, ports, env, command and args. WatchRuntimes notices
//     processes that die; RunProxy feeds a host's userspace kube-proxy.
package cluster
