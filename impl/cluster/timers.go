package cluster

import (
	"slices"
	"time"
)

// RequeueAfter is a timer, as in controller-runtime, not a failure. The
// running driver hands it to the work queue (AddAfter, on the clock). The
// stepped driver keeps it on the logical clock, one tick a second: the key
// is queued again at the first tick at or after its time. Quiescence then
// means that no key is due before the next idle tick, and a controller
// that resyncs every ten minutes quiesces between its resyncs.

// requeueAfter queues key again once d has passed.
func (c *component) requeueAfter(key string, d time.Duration) {
	if !c.env.stepped {
		c.queue.AddAfter(key, d)
		return
	}
	due := c.env.now() + max(1, int64((d+time.Second-1)/time.Second))
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.timers == nil {
		c.timers = map[string]int64{}
	}
	if at, ok := c.timers[key]; !ok || due < at {
		c.timers[key] = due
	}
}

// fireTimers queues, in key order, every key whose time has come by now;
// each goes in as a retry, behind fresh work.
func (c *component) fireTimers(now int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var due []string
	for k, at := range c.timers {
		if at <= now {
			due = append(due, k)
		}
	}
	slices.Sort(due)
	for _, k := range due {
		delete(c.timers, k)
		c.queue.AddAfter(k, 0)
	}
}

// Pending reports whether component has a RequeueAfter timer set: work it
// owes, though no key is queued yet.
func (s *Stepped) Pending(component string) bool {
	c := s.comps[component]
	if c == nil {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.timers) > 0
}
