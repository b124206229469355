// Package controller is converge's controller runtime: informers that keep
// a cache of one resource in step with the store, a deduplicating work
// queue, and a Controller that feeds queue keys to a Reconciler. Every
// component is written once against it and runs under two drivers: the
// running driver (goroutines, real watches, real timers: Informer.Run,
// Controller.Run) and the stepped driver, a test harness that decides when
// each event is delivered and which key is reconciled (Informer.Start,
// DeliverNext, Relist, DropWatch, Reset; Queue.Keys, Controller.ProcessKey).
//
// Queue guarantees:
//   - A key is held at most once; adding a queued key does not move it.
//   - Fair: fresh keys are handed out in the order they were first added.
//   - A key is never processed twice at once: a key handed out by Get or
//     Take is not handed out again until Done; adding it meanwhile queues
//     it again at Done.
//   - AddRateLimited delays a key by BaseDelay*2^(n-1), capped at MaxDelay,
//     n counting the calls since Forget; AddAfter delays by the given
//     duration. Delays are timed by the configured Clock only. In stepped
//     mode there are no delays: the key is queued at once, marked as a
//     retry (IsRetry) until Add makes it fresh work again.
//   - After ShutDown, Get returns shutdown and adds are ignored.
//
// Informer guarantees:
//   - Events are applied in the order the watch delivered them, so the
//     cache holds a subsequence of the store's states for its resource and
//     namespace; LastRev is the revision of the last state applied.
//   - Handlers run after the cache is updated, one event at a time, in
//     registration order; for DELETED the event carries the last state.
//   - A relist replaces the cache as a whole. In running mode the handlers
//     then hear the difference, in key order: DELETED (last state) for
//     keys gone, ADDED for new keys, MODIFIED where the resourceVersion
//     changed. In stepped mode they hear nothing; the caller resyncs.
//   - Running mode relists after a watch error or a 410 Gone, and
//     rewatches from LastRev after a clean close, each after a backoff.
//   - In stepped mode nothing happens without an explicit call: the watch
//     only buffers; DeliverNext applies exactly one buffered event; a
//     broken watch keeps its buffer deliverable and says so (Broken) but is
//     never repaired until Relist; DropWatch discards the buffer, so the
//     next Relist skips the intermediate events.
//   - Cached objects are shared: callers must not mutate them.
//
// Controller guarantees:
//   - Reconcile results follow the Reconciler rules (see Reconciler) in
//     both drivers, through the one function both use.
//   - Run starts workers only after every watched informer has synced; a
//     panicking Reconciler is turned into an error and retried.
//
// Sentinel errors carry the package name ("controller: watch broken") and
// are wrapped with %w.
package controller
