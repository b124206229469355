package model

import (
	"maps"
	"strings"
)

// Component names, as they appear in actions and traces.
const (
	DeploymentController  = "deployment-controller"
	ReplicaSetController  = "replicaset-controller"
	Scheduler             = "scheduler"
	EndpointsController   = "endpoints-controller"
	NodeLifecycle         = "node-lifecycle-controller"
	GarbageCollector      = "garbage-collector"
	NamespaceController   = "namespace-controller"
	StatefulSetController = "statefulset-controller"
	kubeletPrefix         = "kubelet/"
	proxyPrefix           = "kube-proxy/"
)

// KubeletName and ProxyName name the per-node components.
func KubeletName(node string) string { return kubeletPrefix + node }
func ProxyName(node string) string   { return proxyPrefix + node }

// NodeOf returns the node of a per-node component ("" for the others).
func NodeOf(component string) string {
	if n, ok := strings.CutPrefix(component, kubeletPrefix); ok {
		return n
	}
	if n, ok := strings.CutPrefix(component, proxyPrefix); ok {
		return n
	}
	return ""
}

type kindSet uint16

func kinds(ks ...Kind) kindSet {
	var s kindSet
	for _, k := range ks {
		s |= 1 << k
	}
	return s
}

func (s kindSet) has(k Kind) bool { return s&(1<<k) != 0 }

// WatchedKinds lists, per component role, the kinds its informers watch.
func WatchedKinds(component string) []Kind {
	if r := roleOf(component); r != nil {
		return r.watches.list()
	}
	return nil
}

func (s kindSet) list() []Kind {
	var out []Kind
	for k := Kind(0); k < numKinds; k++ {
		if s.has(k) {
			out = append(out, k)
		}
	}
	return out
}

// role is the code of one kind of component: what it watches, how an event
// turns into queue keys, and how it reconciles one key.
type role struct {
	watches kindSet
	// keyKind is the kind its queue keys name (namespace/name or a
	// cluster-scoped name); refKeys: keys are "<resource>/<key>" instead.
	keyKind Kind
	refKeys bool
	// keys returns the queue keys an event concerns, reading the view after
	// the event has been applied.
	keys func(m *Memory, e WatchEvent) []string
	// resync returns every key after a relist.
	resync func(m *Memory, h Host) []string
	// reconcile makes the component's writes for one key.
	reconcile func(m *Memory, h Host, w Writer, key string)
}

// NormalizeKey reads a queue key of a component as a script may write it:
// a namespaced object's key with no namespace is in DefaultNamespace.
func NormalizeKey(component, key string) string {
	r := roleOf(component)
	switch {
	case r == nil:
		return key
	case r.refKeys:
		if ref, ok := ParseRef(key); ok {
			return ref.String()
		}
		return key
	}
	return RefTo(r.keyKind, key).Key()
}

// RequestOf is the namespace and name of the reconcile request for a
// component's queue key, as controller-runtime's Request carries them: a
// key splits at its "/" (a built-in's namespaced key with none is in
// DefaultNamespace, as scripts write it; a bare key of a component no role
// has is a cluster-scoped name, as client-go's SplitMetaNamespaceKey reads
// it); the garbage collector's "<resource>/<namespace>/<name>" keeps its
// whole key as the name, in the object's namespace.
func RequestOf(component, key string) (namespace, name string) {
	r := roleOf(component)
	switch {
	case r == nil:
		return SplitKey(key)
	case r.refKeys:
		ref, _ := ParseRef(key)
		return ref.Namespace, key
	}
	ref := RefTo(r.keyKind, key)
	return ref.Namespace, ref.Name
}

func roleOf(name string) *role {
	switch {
	case name == DeploymentController:
		return &deploymentRole
	case name == ReplicaSetController:
		return &replicaSetRole
	case name == Scheduler:
		return &schedulerRole
	case name == EndpointsController:
		return &endpointsRole
	case name == NodeLifecycle:
		return &nodeLifecycleRole
	case name == GarbageCollector:
		return &gcRole
	case name == NamespaceController:
		return &namespaceRole
	case name == StatefulSetController:
		return &statefulSetRole
	case strings.HasPrefix(name, kubeletPrefix):
		return &kubeletRole
	case strings.HasPrefix(name, proxyPrefix):
		return &proxyRole
	}
	return nil
}

// component is one component's private state: its view (the events
// delivered to it so far), its work queue and its in-flight bookkeeping.
// Its decisions read only this, never the store directly (except where
// Kubernetes components do a live read, which the code says).
type component struct {
	*Memory
	role  *role
	kinds []Kind // watched kinds, in order

	// One informer per watched kind, as upstream: each has its own cursor,
	// the next store log sequence number to look at (Memory.Rev has the
	// revision it reached). Kinds are not ordered against each other, so a
	// view can hold a pod before its owner.
	cursor [numKinds]int64
	seen   int // events delivered since start, relists included

	queue  []string
	queued map[string]bool
	// retry marks queued keys that are only there because their last
	// reconcile failed: the rate-limited requeue of a work queue. A fair
	// schedule serves fresh work first.
	retry map[string]bool
	// idle marks retried keys whose reconcile asked to be retried without
	// writing anything (a poll that found nothing to do yet, as the
	// namespace controller's while its content goes), with the store
	// revision then: the fair schedule offers them again only once the
	// store has moved on.
	idle map[string]int64

	// apiErr is an armed transient API error (fault api-error): the HTTP
	// code the component's next store write fails with.
	apiErr int

	// travel: restarted by time-travel; the next relist is served at the
	// revisions its informers had reached, not the latest (timetravel.go).
	travel bool

	held   bool // fault: events held back
	broken bool // watch dropped: the next delivery relists
	down   bool // per-node components of a node that is down
}

func newComponent(name string) *component {
	return &component{
		Memory: NewMemory(name),
		role:   roleOf(name),
		kinds:  roleOf(name).watches.list(),
		queued: make(map[string]bool),
		retry:  make(map[string]bool),
		idle:   make(map[string]int64),
	}
}

func (c *component) clone() *component {
	d := *c
	d.Memory = c.Memory.clone()
	d.queue = append([]string(nil), c.queue...)
	d.queued = make(map[string]bool, len(c.queued))
	for k, v := range c.queued {
		d.queued[k] = v
	}
	d.idle = maps.Clone(c.idle)
	d.retry = make(map[string]bool, len(c.retry))
	for k, v := range c.retry {
		d.retry[k] = v
	}
	return &d
}

func (c *component) enqueue(key string) {
	if key == "" {
		return
	}
	delete(c.retry, key)
	delete(c.idle, key)
	if c.queued[key] {
		return
	}
	c.queued[key] = true
	c.queue = append(c.queue, key)
}

// requeue puts a key back after a failed reconcile.
func (c *component) requeue(key string) {
	c.enqueue(key)
	c.retry[key] = true
}

func (c *component) dequeue(key string) bool {
	if !c.queued[key] {
		return false
	}
	delete(c.queued, key)
	delete(c.retry, key)
	for i, k := range c.queue {
		if k == key {
			c.queue = append(c.queue[:i], c.queue[i+1:]...)
			break
		}
	}
	return true
}

// crash throws away everything a process keeps in memory.
func (c *component) crash() {
	c.Memory.Reset()
	c.queue = nil
	c.queued = make(map[string]bool)
	c.retry = make(map[string]bool)
	c.idle = make(map[string]int64)
	c.apiErr = 0
	c.broken = true
	c.travel = false
}

// nextEvent finds the next log entry of kind k, from that informer's cursor.
func (c *component) nextEvent(s *store, k Kind) (int64, bool) {
	for seq := c.cursor[k]; seq < s.logEnd(); seq++ {
		if s.event(seq).Obj.Kind() == k {
			return seq, true
		}
		c.cursor[k] = seq + 1 // skipping other kinds changes nothing observable
	}
	return 0, false
}
