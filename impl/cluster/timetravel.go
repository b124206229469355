package cluster

// Time travel (model.OpTimeTravel), as model/timetravel.go describes it: a
// component crashes and restarts, and its next list is served at the
// revision each of its informers had reached, from etcd's history (a
// ResourceVersion list), after which its watches deliver every later event
// again. The informers keep their caches until that list replaces them
// with the same objects; the process loses its queue, expectations,
// timers, armed fault and, for a user's controller, its instance.

// restartStale is crash without emptying the informers' caches and the
// memory's view; the relist that follows is served at the old revisions.
func (c *component) restartStale() {
	for _, inf := range c.inf {
		inf.DropWatch()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.mem.ForgetAllExpectations()
	c.queue = c.env.newQueue()
	c.timers = nil
	c.fault = 0
	c.broken, c.travel = true, true
	if c.user != nil {
		c.user.rec = nil
	}
}
