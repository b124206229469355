package operator

// RestartInThePast is Restart against an apiserver that lags behind what
// the dead operator saw, as Sieve's time travel has it: a stale apiserver
// that stopped right after a crucial event. Every informer's first list is
// served at the revision of the last event the dead operator's informers
// delivered that began an object's deletion, so the restarted operator
// sees that object being deleted again, though it may have gone since and
// come back under a new uid; what happened since comes after it as watch
// events. With no such event, each informer lists where the dead one first
// listed. An operator that cleans up by name then deletes the new
// incarnation's children (pravega/zookeeper-operator#312,
// datastax/cass-operator#412).
func (h *Host) RestartInThePast() error {
	var at int64
	for _, i := range h.run.cache.all() {
		at = max(at, i.deletingRev)
	}
	lag := map[string]int64{}
	for _, i := range h.run.cache.all() {
		lag[i.inner.Resource()] = i.startRev
		if at > 0 {
			lag[i.inner.Resource()] = at
		}
	}
	h.stop()
	return h.start(lag)
}
