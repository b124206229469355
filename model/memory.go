package model

import (
	"iter"
	"maps"
	"slices"
	"strings"
)

// Memory is what a component keeps between steps and decides from: its
// view (the objects its informers delivered), the revision each informer
// has reached, and its expectations. The model's components and the
// implementation's components (which project their informer caches into a
// Memory) run the same decision code over it.
type Memory struct {
	Name string
	Node string // for per-node components
	// view holds the objects its informers delivered, per kind by key
	// (namespace/name); names holds their keys in order once a List has
	// asked (built), and listed the objects in that order, kept up to date
	// by Put and Remove: the components list on every reconcile, and
	// sorting thousands of pods each time, then looking a thousand nodes up
	// by name for each pod scheduled, was most of their cost.
	view   [NumKinds]map[string]Obj
	names  [NumKinds][]string
	listed [NumKinds][]Obj
	built  [NumKinds]bool
	// used sums the requests of the viewed pods bound to each node once
	// the scheduler has asked (usedBuilt), kept up to date by Put and
	// Remove: the scheduler needs it for every pod, and summing every pod
	// each time made scheduling n pods quadratic. The other components
	// never ask, and keeping it for them was a fifth of their views' cost.
	used      map[string]use
	usedBuilt bool
	// nodeUse is used in the order of the sorted nodes (listed[KindNode])
	// once the scheduler has asked (nodeUseBuilt, valid while the nodes'
	// order is built), kept up to date by Put, Remove and count: looking
	// each of a thousand nodes up by name for every pod placed was most of
	// the scheduler's cost.
	nodeUse      []use
	nodeUseBuilt bool
	// owned indexes the viewed pods by their owner's UID once OwnedPods has
	// asked (ownedBuilt), kept up to date by Put and Remove: the replicaset
	// controller syncs a ReplicaSet on every event of its pods, and going
	// through all ten thousand pods each time made a rollout quadratic.
	owned      map[int64]*ownedPods
	ownedBuilt bool
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
	return &Memory{Name: component, Node: NodeOf(component), expect: map[string]expectation{}}
}

// clone copies the view; the copy builds its own name order when listed.
func (m *Memory) clone() *Memory {
	d := *m
	d.names, d.listed, d.built = [NumKinds][]string{}, [NumKinds][]Obj{}, [NumKinds]bool{}
	d.used, d.usedBuilt = nil, false
	d.nodeUse, d.nodeUseBuilt = nil, false
	d.owned, d.ownedBuilt = nil, false
	for k, objs := range m.view {
		d.view[k] = maps.Clone(objs)
	}
	d.expect = maps.Clone(m.expect)
	return &d
}

// Copy is a copy of the memory, view and expectations, that writes to it
// leave m alone (the mutant catalogue's altered views).
func (m *Memory) Copy() *Memory { return m.clone() }

// Reset forgets everything, as a crashed process does.
func (m *Memory) Reset() {
	m.Clear()
	m.Rev = [NumKinds]int64{}
	m.expect = map[string]expectation{}
}

// Clear empties the view (a relist refills it).
func (m *Memory) Clear() {
	m.view, m.names, m.listed, m.built = [NumKinds]map[string]Obj{}, [NumKinds][]string{}, [NumKinds][]Obj{}, [NumKinds]bool{}
	m.used, m.usedBuilt = nil, false
	m.nodeUse, m.nodeUseBuilt = nil, false
	m.owned, m.ownedBuilt = nil, false
}

// Get returns the viewed object of kind k under key (namespace/name, or
// the name of a cluster-scoped object; for KindCustom, prefixed with the
// type: "widgets.example.com/ns/name"), nil if absent.
func (m *Memory) Get(k Kind, key string) Obj {
	if k >= numKinds {
		return nil
	}
	return m.view[k][key]
}

// GetRef returns the viewed object r names (nil if absent).
func (m *Memory) GetRef(r Ref) Obj { return m.Get(r.Kind, viewKey(r)) }

// viewKey is r's key in a view: Ref.Key, which custom resources of two
// types may share, so theirs is prefixed with the type.
func viewKey(r Ref) string {
	if r.Type != "" {
		return r.Type + "/" + r.Key()
	}
	return r.Key()
}

// Len is the number of viewed objects.
func (m *Memory) Len() int {
	n := 0
	for _, objs := range m.view {
		n += len(objs)
	}
	return n
}

// List returns the view's objects of one kind in key order (by namespace,
// then name). The slice is
// the caller's.
func (m *Memory) List(k Kind) []Obj {
	if len(m.sorted(k)) == 0 {
		return nil
	}
	return slices.Clone(m.listed[k])
}

// sorted is List without the copy, for a caller that only reads it
// before the view changes again (the scheduler, once per pod).
func (m *Memory) sorted(k Kind) []Obj {
	m.build(k)
	return m.listed[k]
}

// Each yields the view's objects of one kind in no set order, for
// decisions that do not depend on it. The view must not change meanwhile.
func (m *Memory) Each(k Kind) iter.Seq[Obj] { return maps.Values(m.view[k]) }

func (m *Memory) build(k Kind) {
	if !m.built[k] {
		m.names[k] = slices.Sorted(maps.Keys(m.view[k]))
		m.listed[k] = make([]Obj, len(m.names[k]))
		for i, name := range m.names[k] {
			m.listed[k][i] = m.view[k][name]
		}
		m.built[k] = true
		if k == KindNode {
			m.nodeUse, m.nodeUseBuilt = nil, false
		}
	}
}

// sortedUse is what the viewed pods request of each node, in the order of
// sorted(KindNode).
func (m *Memory) sortedUse() []use {
	nodes := m.sorted(KindNode)
	if !m.usedBuilt {
		m.used, m.usedBuilt = map[string]use{}, true
		for _, o := range m.view[KindPod] { // sums: the order does not matter
			m.count(o, +1)
		}
	}
	if !m.nodeUseBuilt {
		m.nodeUse = make([]use, len(nodes))
		for i, o := range nodes {
			m.nodeUse[i] = m.used[o.(*Node).Name]
		}
		m.nodeUseBuilt = true
	}
	return m.nodeUse
}

// nodeUseValid reports whether nodeUse follows the nodes' order.
// (sortedUse builds used before nodeUse, and whatever forgets used
// forgets nodeUse too.)
func (m *Memory) nodeUseValid() bool { return m.nodeUseBuilt && m.built[KindNode] }

// Objects returns every viewed object, by kind, then in name order.
func (m *Memory) Objects() []Obj {
	out := make([]Obj, 0, m.Len())
	for k := range Kind(numKinds) {
		out = append(out, m.List(k)...)
	}
	return out
}

// Put adds or replaces an object in the view.
func (m *Memory) Put(o Obj) { m.put(o, viewKey(RefOf(o))) }

// put is Put with o's view key, which Apply has made already: every
// component's view takes every event of its kinds, and building the key
// was a string allocation each time.
func (m *Memory) put(o Obj, name string) {
	k := o.Kind()
	if m.view[k] == nil {
		m.view[k] = map[string]Obj{}
	}
	old, had := m.view[k][name]
	m.view[k][name] = o
	if k == KindPod {
		m.count(old, -1)
		m.count(o, +1)
		m.own(old, name, -1)
		m.own(o, name, +1)
	}
	if m.built[k] {
		i, _ := slices.BinarySearch(m.names[k], name)
		if had {
			m.listed[k][i] = o
		} else {
			m.names[k] = slices.Insert(m.names[k], i, name)
			m.listed[k] = slices.Insert(m.listed[k], i, o)
			if k == KindNode && m.nodeUseValid() {
				m.nodeUse = slices.Insert(m.nodeUse, i, m.used[name])
			}
		}
	}
}

// Remove drops an object from the view.
func (m *Memory) Remove(r Ref) { m.remove(r.Kind, viewKey(r)) }

// remove is Remove by kind and view key.
func (m *Memory) remove(k Kind, key string) {
	old, had := m.view[k][key]
	if !had {
		return
	}
	delete(m.view[k], key)
	m.count(old, -1)
	m.own(old, key, -1)
	if m.built[k] {
		if i, found := slices.BinarySearch(m.names[k], key); found {
			m.names[k] = slices.Delete(m.names[k], i, i+1)
			m.listed[k] = slices.Delete(m.listed[k], i, i+1)
			if k == KindNode && m.nodeUseValid() {
				m.nodeUse = slices.Delete(m.nodeUse, i, i+1)
			}
		}
	}
}

// ownedPods are one owner's viewed pods, by key, and a tally of those
// that are not Deleting by their labels (usually one set: the owner's), so
// that a ReplicaSet's sync with nothing to create, delete or free counts
// its pods without going through them.
type ownedPods struct {
	byKey map[string]*Pod
	live  map[string]*labelTally
}

// labelTally counts the live pods of one owner that carry labels.
type labelTally struct {
	labels   map[string]string
	n, ready int
}

// OwnedPods yields the viewed pods whose owner has the given UID, in no
// set order. The view must not change meanwhile.
func (m *Memory) OwnedPods(uid int64) iter.Seq[*Pod] {
	m.buildOwned()
	if o := m.owned[uid]; o != nil {
		return maps.Values(o.byKey)
	}
	return func(func(*Pod) bool) {}
}

// OwnedTally counts the viewed pods whose owner has the given UID and
// that are not Deleting: selected are those selector Matches, ready the
// Ready ones among them, and strays those it does not match.
func (m *Memory) OwnedTally(uid int64, selector map[string]string) (selected, ready, strays int) {
	m.buildOwned()
	if o := m.owned[uid]; o != nil {
		for _, t := range o.live {
			if Matches(selector, t.labels) {
				selected, ready = selected+t.n, ready+t.ready
			} else {
				strays += t.n
			}
		}
	}
	return selected, ready, strays
}

// buildOwned builds the owner index on first use.
func (m *Memory) buildOwned() {
	if !m.ownedBuilt {
		m.ownedBuilt = true
		for key, o := range m.view[KindPod] {
			m.own(o, key, +1)
		}
	}
}

// own adds (sign +1) or takes away (-1) pod o in the owner index, once
// it is built.
func (m *Memory) own(o Obj, key string, sign int) {
	p, ok := o.(*Pod)
	if !ok || !m.ownedBuilt || p.Owner.UID == 0 {
		return
	}
	op := m.owned[p.Owner.UID]
	if op == nil {
		if sign < 0 {
			return
		}
		if m.owned == nil {
			m.owned = map[int64]*ownedPods{}
		}
		op = &ownedPods{byKey: map[string]*Pod{}, live: map[string]*labelTally{}}
		m.owned[p.Owner.UID] = op
	}
	if sign < 0 {
		delete(op.byKey, key)
	} else {
		op.byKey[key] = p
	}
	if !p.Deleting {
		sig := labelsKey(p.Labels)
		t := op.live[sig]
		if t == nil {
			t = &labelTally{labels: p.Labels}
			op.live[sig] = t
		}
		t.n += sign
		if p.Ready {
			t.ready += sign
		}
		if t.n == 0 {
			delete(op.live, sig)
		}
	}
	if len(op.byKey) == 0 {
		delete(m.owned, p.Owner.UID)
	}
}

// labelsKey is one string for a set of labels: equal sets, equal keys.
func labelsKey(labels map[string]string) string {
	var b strings.Builder
	for _, k := range sortedKeys(labels) {
		b.WriteString(k)
		b.WriteByte(0)
		b.WriteString(labels[k])
		b.WriteByte(0)
	}
	return b.String()
}

// count adds (sign +1) or takes away (-1) what pod o, if bound, requests
// of its node.
func (m *Memory) count(o Obj, sign int) {
	p, ok := o.(*Pod)
	if !ok || p.NodeName == "" || !m.usedBuilt {
		return
	}
	u := m.used[p.NodeName]
	u.cpu += sign * p.CPU
	u.mem += sign * p.Memory
	u.pods += sign
	if u == (use{}) {
		delete(m.used, p.NodeName)
	} else {
		m.used[p.NodeName] = u
	}
	if m.nodeUseValid() {
		if i, found := slices.BinarySearch(m.names[KindNode], p.NodeName); found {
			m.nodeUse[i] = u
		}
	}
}

// Apply puts an event into the view and advances that kind's revision. It
// returns what the view held under the event's name before (WatchEvent.Old).
func (m *Memory) Apply(e WatchEvent) (old Obj) {
	k, key := e.Obj.Kind(), e.key
	if key == "" {
		key = viewKey(RefOf(e.Obj))
	}
	old = m.Get(k, key)
	if e.Type == Deleted {
		m.remove(k, key)
	} else {
		m.put(e.Obj, key)
	}
	m.Rev[e.Obj.Kind()] = e.Rev
	return old
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
// runtime and rules.
type Host interface {
	Live(r Ref) Obj
	// LiveList lists a kind from the store (the garbage collector's check
	// that no dependent is left before an owner's finalizer goes). For
	// KindCustom an implementation lists, beside the custom resources, its
	// objects of every other kind the model lacks (ConfigMaps, Secrets,
	// Events), opaque as custom resources are: no informer of the model's
	// follows those, but owners and namespaces hold them.
	LiveList(k Kind) ([]Obj, error)
	Now() int64
	NodeIndex(node string) int
	Containers(node string) []Container // sorted by ID
	Rules(node string) map[string]Rule  // read-only
	// ImagePullFails tells whether a pull of the image fails now (a world
	// fault, model/world.go): the kubelet's pull attempt, answered.
	ImagePullFails(image string) bool
	// CPUFullNodes lists, sorted, the nodes whose spare CPU another
	// tenant holds (a world fault, model/world_cpu.go): what the
	// scheduler's fit filter counts beyond the pods it sees.
	CPUFullNodes() []string
}

// Writer makes a component's writes in order. Store writes return the
// revision of a successful write, 0 otherwise; a failed write stops the
// reconcile (Stopped), and so does a crash point.
type Writer interface {
	Create(o Obj) int64
	CreateGenerated(prefix string, o Obj) int64
	// CreateGeneratedAll creates objs with generated names, as upstream's
	// replicaset controller creates a slow-start batch of pods: here one
	// after another, in a running implementation several at once. It
	// returns the highest revision written (0 if none), and starts no
	// more creates once one has failed.
	CreateGeneratedAll(prefix string, objs []Obj) int64
	// Update writes after (a changed copy of before) with a CAS on before's version.
	Update(verb Verb, before, after Obj) int64
	// Bind sets a pod's node through the binding subresource.
	Bind(p *Pod, node string) int64
	// Delete deletes with a CAS (gracefully for bound pods) and no
	// propagation policy; finalizers may hold the object.
	Delete(o Obj) int64
	// DeleteWith is Delete with a propagation policy (the garbage
	// collector's).
	DeleteWith(o Obj, p Propagation) int64
	// RemoveNow deletes with a CAS and no grace period (the kubelet's final
	// delete); finalizers may still hold the object.
	RemoveNow(o Obj) int64
	// StartContainer starts c, replacing the pod's exited container.
	StartContainer(c Container) bool
	// StopContainer stops and removes c.
	StopContainer(c Container) bool
	SetRule(service string, r Rule) bool
	DeleteRule(service string) bool
	Stopped() bool
	// Retry ends the reconcile as unfinished, as a Reconciler returning an
	// error: the key is requeued with backoff.
	Retry()
}

// Keys returns the queue keys an event concerns for a component, reading
// its memory after the event was applied.
func Keys(m *Memory, e WatchEvent) []string { return roleOf(m.Name).keys(m, e) }

// Resync returns every key a component queues after a list.
func Resync(m *Memory, h Host) []string { return roleOf(m.Name).resync(m, h) }

// Reconcile runs a component's decision for one key.
func Reconcile(m *Memory, h Host, w Writer, key string) { roleOf(m.Name).reconcile(m, h, w, key) }
