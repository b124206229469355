package model

import (
	"errors"
	"fmt"
	"maps"
	"sort"
)

// ErrNotEnabled is returned by Step for an action that cannot happen now.
var ErrNotEnabled = errors.New("model: action not enabled")

// Config selects variants of the model. The zero value is the correct model.
type Config struct {
	// Decisions replaces components' decisions (tests and mutants only).
	Decisions Decisions
}

// State is the whole cluster: the store, the logical clock, every
// component's private state and every node's runtime. Step changes it in
// place and never deep-copies it; Clone is for the rare caller that needs a
// copy.
type State struct {
	cfg       Config
	store     *store
	now       int64
	comps     map[string]*component
	names     []string // component names, sorted
	runtime   map[string]*nodeRuntime
	nodeIndex map[string]int
	failing   map[string]bool // images whose pulls fail (world.go)
	cpuFull   map[string]bool // nodes whose spare CPU another tenant holds (world_cpu.go)
	lastRetry string          // whose failed key the last reconcile retried (RetryOrder)
	// undelivered: no component before names[undelivered] has a delivery
	// enabled. NextQuiesceStep starts its search there: with a thousand
	// nodes, scanning every component on every step was nearly all of a
	// quiesce's cost. A delivery or relist changes only its own component,
	// which Step accepts only if it was enabled (so at or after this
	// index); every other step starts the search over.
	undelivered int
	trimAt      int // the log's length above which a delivery trims it
}

// ControlPlane lists the cluster-wide components every State starts with.
var ControlPlane = []string{DeploymentController, ReplicaSetController, Scheduler, EndpointsController, NodeLifecycle, GarbageCollector, NamespaceController, StatefulSetController}

// New returns an empty cluster with the control-plane components running
// and no nodes.
func New(cfg Config) *State {
	st := &State{cfg: cfg, store: newStore(), comps: map[string]*component{}, runtime: map[string]*nodeRuntime{}, nodeIndex: map[string]int{}, failing: map[string]bool{}, cpuFull: map[string]bool{}}
	for _, n := range ControlPlane {
		st.addComponent(n)
	}
	return st
}

// addComponent starts a component; it lists the store as it starts.
func (st *State) addComponent(name string) {
	c := newComponent(name)
	st.comps[name] = c
	st.relist(c)
	c.seen = 0
	st.names = append(st.names, name)
	sort.Strings(st.names)
}

func (st *State) removeComponent(name string) {
	delete(st.comps, name)
	for i, n := range st.names {
		if n == name {
			st.names = append(st.names[:i:i], st.names[i+1:]...)
			return
		}
	}
}

// Clone returns an independent copy.
func (st *State) Clone() *State {
	c := *st
	c.store = st.store.clone()
	c.comps = make(map[string]*component, len(st.comps))
	for k, v := range st.comps {
		c.comps[k] = v.clone()
	}
	c.names = append([]string(nil), st.names...)
	c.runtime = make(map[string]*nodeRuntime, len(st.runtime))
	for k, v := range st.runtime {
		c.runtime[k] = v.clone()
	}
	c.failing = maps.Clone(st.failing)
	c.cpuFull = maps.Clone(st.cpuFull)
	c.nodeIndex = make(map[string]int, len(st.nodeIndex))
	for k, v := range st.nodeIndex {
		c.nodeIndex[k] = v
	}
	return &c
}

// Now is the logical clock.
func (st *State) Now() int64 { return st.now }

// Rev is the store's revision.
func (st *State) Rev() int64 { return st.store.rev }

// Components lists the running components, sorted.
func (st *State) Components() []string { return append([]string(nil), st.names...) }

// Get returns the stored object (nil if absent). Objects must not be modified.
func (st *State) Get(r Ref) Obj { return st.store.get(r) }

// Objects returns the stored objects of one kind, in key order.
func (st *State) Objects(k Kind) []Obj {
	var out []Obj
	for r, o := range st.store.objs {
		if r.Kind == k {
			out = append(out, o)
		}
	}
	SortObjects(out)
	return out
}

// Containers returns a node's containers sorted by ID ("" for all nodes).
func (st *State) Containers(node string) []Container {
	var out []Container
	for n, rt := range st.runtime {
		if node != "" && n != node {
			continue
		}
		for _, c := range rt.containers {
			out = append(out, *c)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// Queue returns a component's queued keys in order.
func (st *State) Queue(component string) []string {
	if c := st.comps[component]; c != nil {
		return append([]string(nil), c.queue...)
	}
	return nil
}

// Seen is the number of events delivered to a component so far.
func (st *State) Seen(component string) int {
	if c := st.comps[component]; c != nil {
		return c.seen
	}
	return 0
}

// Result is what one step did.
type Result struct {
	Writes []Write
	// Delivered describes a delivery: "ADDED pods/x", or "RELIST n".
	Delivered string
	// Err is why a user action or a step could not be done (no state change
	// beyond the failed writes, which are in Writes).
	Err error
}

// Step applies one action. An action that is not enabled returns
// ErrNotEnabled and changes nothing.
func (st *State) Step(a Action) Result {
	if !st.enabled(a) {
		return Result{Err: fmt.Errorf("%w: %s", ErrNotEnabled, a)}
	}
	if a.Op != OpDeliver && a.Op != OpRelist {
		st.undelivered = 0
	}
	switch {
	case a.Op.IsUser():
		return st.user(a)
	case a.Op.IsStep():
		return st.step(a)
	default:
		return st.fault(a)
	}
}

func (st *State) step(a Action) Result {
	c := st.comps[a.Who]
	switch a.Op {
	case OpDeliver:
		return Result{Delivered: st.deliver(c, a.Kind)}
	case OpRelist:
		return Result{Delivered: st.relist(c)}
	case OpReconcile:
		if c.retry[a.Key] {
			st.lastRetry = c.Name
		}
		c.dequeue(a.Key)
		limit := -1
		if a.CrashAfter > 0 {
			limit = a.CrashAfter
		}
		t := &tx{st: st, actor: c.Name, limit: limit, comp: c}
		st.cfg.Decisions.For(c.Name)(c.Memory, st, t, a.Key)
		if a.CrashAfter > 0 {
			c.crash()
		} else if t.failed {
			c.requeue(a.Key)
			if t.polled && len(t.writes) == 0 {
				c.idle[a.Key] = st.store.rev
			}
		}
		return Result{Writes: t.writes}
	case OpHeartbeat:
		t := &tx{st: st, actor: KubeletName(a.Who), limit: -1}
		n := st.store.get(Ref{Kind: KindNode, Name: a.Who}).(*Node) // a live GET, as the kubelet does
		t.Update(VerbStatus, n, Heartbeat(n, st.now))
		return Result{Writes: t.writes}
	}
	return Result{}
}

// relist replaces a broken watch: the view becomes the current store
// (intermediate states unseen) and every key is queued.
func (st *State) relist(c *component) string {
	if c.travel {
		return st.relistStale(c)
	}
	c.Clear()
	for r, o := range st.store.objs {
		if c.role.watches.has(r.Kind) {
			c.Put(o)
		}
	}
	for k := range c.cursor {
		c.cursor[k], c.Rev[k] = st.store.logEnd(), st.store.rev
	}
	c.broken = false
	c.seen++
	for _, k := range c.role.resync(c.Memory, st) {
		c.enqueue(k)
	}
	return fmt.Sprintf("RELIST %d", c.Len())
}

// deliver hands the component the next event of one kind.
func (st *State) deliver(c *component, k Kind) string {
	seq, _ := c.nextEvent(st.store, k)
	e := st.store.event(seq)
	c.cursor[k] = seq + 1
	e.Old = c.Apply(e)
	c.seen++
	for _, k := range c.role.keys(c.Memory, e) {
		c.enqueue(k)
	}
	if len(st.store.log) > st.trimAt {
		st.trimLog()
		// Try again once the log has grown by as much: a trim goes
		// through every component, and while one lags it frees nothing,
		// so trying on every delivery made a thousand nodes' deliveries
		// quadratic.
		st.trimAt = max(4096, len(st.store.log)+4096)
	}
	if e.delivered == "" { // an event made outside the store's log
		return RefOf(e.Obj).prefixed(e.Type.String() + " ")
	}
	return e.delivered
}

func (st *State) trimLog() {
	min := st.store.logEnd()
	for _, c := range st.comps {
		for k, cur := range c.cursor {
			if (!c.broken || c.travel) && c.role.watches.has(Kind(k)) && cur < min {
				min = cur
			}
		}
	}
	st.store.trim(min)
}

func (st *State) fault(a Action) Result {
	if a.Op.IsWorld() {
		st.worldFault(a)
		return Result{}
	}
	c := st.comps[a.Who]
	switch a.Op {
	case OpHold:
		c.held = true
	case OpRelease:
		c.held = false
	case OpDropWatch:
		c.broken = true
		c.travel = false
	case OpCompact:
		// Watches resume from the revision after their view's; a compacted
		// revision answers Gone, so every lagging watch relists.
		for _, c := range st.comps {
			for k, rev := range c.Rev {
				if c.role.watches.has(Kind(k)) && rev < st.store.rev {
					c.broken, c.travel = true, false // the old revision is gone too
				}
			}
		}
	case OpCrash:
		c.crash()
	case OpAPIError:
		c.apiErr = a.N
	case OpTimeTravel:
		c.restartStale()
	case OpCrashContainer:
		rt := st.runtime[a.Who]
		for _, ctr := range st.Containers(a.Who) {
			if ctr.Pod == a.Key && rt.crash(ctr.ID, ExitError, ReasonError) {
				// The kubelet's pod lifecycle event generator notices.
				st.comps[KubeletName(a.Who)].enqueue(a.Key)
			}
		}
	case OpNodeDown, OpNodeUp:
		for _, n := range []string{KubeletName(a.Who), ProxyName(a.Who)} {
			st.comps[n].down = a.Op == OpNodeDown
			if a.Op == OpNodeUp {
				// Partitioned watches are gone, and the new list is the
				// latest one, as after a dropped watch.
				st.comps[n].broken, st.comps[n].travel = true, false
			}
		}
	}
	return Result{}
}

// State is the Host of its own components.
var _ Host = (*State)(nil)

func (st *State) Live(r Ref) Obj                 { return st.store.get(r) }
func (st *State) LiveList(k Kind) ([]Obj, error) { return st.Objects(k), nil }
func (st *State) NodeIndex(node string) int      { return st.nodeIndex[node] }

// Rules returns a node's kube-proxy rules (read-only).
func (st *State) Rules(node string) map[string]Rule {
	if rt := st.runtime[node]; rt != nil {
		return rt.rules
	}
	return nil
}
