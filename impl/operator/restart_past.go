package operator

// RestartInThePast is Restart against an apiserver that lags further than
// RestartLagging's: each informer's first list is served at the revision
// the dead operator's informer first listed at, so the restarted operator
// sees again the past its predecessor saw and acted on, and what happened
// since comes after it as watch events. This is Sieve's time travel
// proper: a stale apiserver shows a custom resource being deleted that has
// since gone and come back under a new uid, and an operator that cleans up
// by name deletes the new one's children (pravega/zookeeper-operator#312).
func (h *Host) RestartInThePast() error {
	lag := map[string]int64{}
	for _, i := range h.run.cache.all() {
		lag[i.inner.Resource()] = i.startRev
	}
	h.stop()
	return h.start(lag)
}
