package model

// Memory is what a component keeps between steps and decides from: its
// view (the objects its informers delivered), the revision each informer
// has reached, and its expectations. The model's components and the
// implementation's components (which project their informer caches into a
// Memory) run the same decision code over it.
type Memory struct {
	Name string
	Node string // for per-node components
	View map[Ref]Obj
	// Rev is, per kind, the revision of the last event its informer
	// delivered (or of its last list).
	Rev    [NumKinds]int64
	expect map[string]expectation
}

// NumKinds is the number of kinds the model knows.
const NumKinds = int(numKinds)

type expectation struct {
	kind Kind
	rev  int64
}

// NewMemory returns an empty memory for a component.
func NewMemory(component string) *Memory {
	return &Memory{Name: component, Node: NodeOf(component), View: map[Ref]Obj{}, expect: map[string]expectation{}}
}

func (m *Memory) clone() *Memory {
	d := *m
	d.View = make(map[Ref]Obj, len(m.View))
	for k, v := range m.View {
		d.View[k] = v
	}
	d.expect = make(map[string]expectation, len(m.expect))
	for k, v := range m.expect {
		d.expect[k] = v
	}
	return &d
}

// Reset forgets everything, as a crashed process does.
func (m *Memory) Reset() {
	m.View = map[Ref]Obj{}
	m.Rev = [NumKinds]int64{}
	m.expect = map[string]expectation{}
}

// Get returns the viewed object (nil if absent).
func (m *Memory) Get(k Kind, name string) Obj { return m.View[Ref{k, name}] }

// List returns the view's objects of one kind in name order.
func (m *Memory) List(k Kind) []Obj {
	var out []Obj
	for r, o := range m.View {
		if r.Kind == k {
			out = append(out, o)
		}
	}
	sortObjs(out)
	return out
}

// Apply puts an event into the view and advances that kind's revision.
func (m *Memory) Apply(e Event) {
	if e.Type == Deleted {
		delete(m.View, RefOf(e.Obj))
	} else {
		m.View[RefOf(e.Obj)] = e.Obj
	}
	m.Rev[e.Obj.Kind()] = e.Rev
}

// ExpectWrite records a write (of kind k, at rev) that the key must see in
// the view before it is acted on again: upstream's expectations, which
// survive a stale cache.
func (m *Memory) ExpectWrite(key string, k Kind, rev int64) {
	if rev != 0 {
		m.expect[key] = expectation{k, rev}
	}
}

// Waiting reports whether the key's expectations are not yet met.
func (m *Memory) Waiting(key string) bool {
	e := m.expect[key]
	return e.rev > m.Rev[e.kind]
}

// Host is what a component may consult beyond its memory: live reads (only
// where Kubernetes components make them), the logical clock, its node's
// runtime and rules, and the model variant.
type Host interface {
	Live(r Ref) Obj
	Now() int64
	Mutant() Mutant
	NodeIndex(node string) int
	Containers(node string) []Container // sorted by ID
	Rules(node string) map[string]Rule  // read-only
}

// Writer makes a component's writes in order. Store writes return the
// revision of a successful write, 0 otherwise; a failed write stops the
// reconcile (Stopped), and so does a crash point.
type Writer interface {
	Create(o Obj) int64
	CreateGenerated(prefix string, o Obj) int64
	// Update writes after (a changed copy of before) with a CAS on before's version.
	Update(verb Verb, before, after Obj) int64
	// Bind sets a pod's node through the binding subresource.
	Bind(p *Pod, node string) int64
	// Delete deletes with a CAS (gracefully for bound pods).
	Delete(o Obj) int64
	// RemoveNow deletes for good with a CAS (the kubelet's final delete).
	RemoveNow(o Obj) int64
	// StartContainer starts c, replacing the pod's exited container.
	StartContainer(c Container) bool
	// StopContainer stops and removes c.
	StopContainer(c Container) bool
	SetRule(service string, r Rule) bool
	DeleteRule(service string) bool
	Stopped() bool
}

// Keys returns the queue keys an event concerns for a component, reading
// its memory after the event was applied.
func Keys(m *Memory, e Event) []string { return roleOf(m.Name).keys(m, e) }

// Resync returns every key a component queues after a list.
func Resync(m *Memory, h Host) []string { return roleOf(m.Name).resync(m, h) }

// Reconcile runs a component's decision for one key.
func Reconcile(m *Memory, h Host, w Writer, key string) { roleOf(m.Name).reconcile(m, h, w, key) }
