package cluster

// Time travel (model.OpTimeTravel), as model/timetravel.go describes it: a
// component crashes and restarts, and its next list is served at the
// revision each of its informers had reached, from etcd's history (a
// ResourceVersion list), after which its watches deliver every later event
// again. The informers keep their caches until that list replaces them
// with the same objects; the process loses its queue, expectations,
// timers, armed fault and, for a user's controller, its instance.

import "github.com/converge-dev/converge/model"

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

// TimeTravels lists the time-travel faults that can happen now, as
// model.State.TimeTravels does.
func (s *Stepped) TimeTravels() []model.Action {
	var out []model.Action
	for _, n := range s.names {
		if a := (model.Action{Op: model.OpTimeTravel, Who: n}); s.enabled(a) {
			out = append(out, a)
		}
	}
	return out
}
