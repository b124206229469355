package model

import "fmt"

// Time travel (fault time-travel): a component crashes and restarts, and
// its list is served by a lagging apiserver, at the revision each of its
// informers had reached rather than at the latest; it then catches up
// through watch events from there, as Sieve's time-travel bugs need. A
// kind's view is exactly the store's objects of that kind at the revision
// its informer reached (events of one kind are applied in order, none
// skipped), so the old list is the view the process had: the restart keeps
// it and the cursors, and loses its queue and expectations, as a crash
// does. A compaction or a dropped watch before the list makes the old
// revision unavailable, and the list is the latest one.
//
// EnabledFaults does not list it; TimeTravels does, for the properties
// that ask for it (their TimeTravel options). The built-in replicaset
// controller, like upstream's before consistent lists, and the example
// user controller both create their pods again after such a restart
// (their expectations died with the process and the old list does not
// show their creates), which the invariants flag: a property draws it for
// the components that are meant to withstand a lagging apiserver.

// restartStale is a crash whose next relist is served at the old
// revisions.
func (c *component) restartStale() {
	view, rev := c.Memory.view, c.Memory.Rev
	c.crash()
	// The crash cleared every index; each is built again from the view
	// when first asked.
	c.Memory.view, c.Memory.Rev = view, rev
	c.travel = true
}

// relistStale lists at the revisions the informers had reached: the view
// before the restart, which restartStale kept; the cursors resume there.
func (st *State) relistStale(c *component) string {
	c.travel, c.broken = false, false
	c.seen++
	for _, k := range c.role.resync(c.Memory, st) {
		c.enqueue(k)
	}
	return fmt.Sprintf("RELIST %d", c.Len())
}

// ForgetAllExpectations drops every key's expectations, as a restarted
// process has none.
func (m *Memory) ForgetAllExpectations() { m.expect = map[string]expectation{} }

// TimeTravels lists the time-travel faults that can happen now, in
// component order.
func (st *State) TimeTravels() []Action {
	var out []Action
	for _, n := range st.names {
		if a := (Action{Op: OpTimeTravel, Who: n}); st.enabled(a) {
			out = append(out, a)
		}
	}
	return out
}
