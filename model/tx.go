package model

import (
	"slices"
	"strings"
)

// tx runs one action's writes in order against the model's store and
// runtimes; it is the model's Writer. A failed write stops the reconcile
// (the key is requeued); a crash point stops it after the k-th write.
type tx struct {
	st     *State
	actor  string
	writes []Write
	limit  int // writes allowed before the crash; <0: no crash
	failed bool
	polled bool       // Retry ended it
	comp   *component // the reconciling component, for its armed api-error
}

var _ Writer = (*tx)(nil)

// Retry ends the reconcile as unfinished: its key is requeued.
func (t *tx) Retry() { t.failed, t.polled = true, true }

func (t *tx) Stopped() bool {
	return t.failed || (t.limit >= 0 && len(t.writes) >= t.limit)
}

func (t *tx) record(w Write) int64 {
	w.Actor = t.actor
	t.writes = append(t.writes, w)
	if w.Err != nil {
		t.failed = true
		return 0
	}
	return w.Rev
}

func (t *tx) Create(o Obj) int64 {
	if t.Stopped() || t.transient() {
		return 0
	}
	deleting := t.ownerDeleting(o)
	rev, err := t.st.store.create(o)
	return t.record(Write{Verb: VerbCreate, Ref: RefOf(o), After: okObj(o, err), Rev: rev, Err: err, OwnerDeleting: deleting})
}

func (t *tx) ownerDeleting(o Obj) bool {
	if t.comp == nil {
		return false
	}
	return OwnerDeletingIn(t.comp.Memory, o)
}

func (t *tx) CreateGenerated(prefix string, o Obj) int64 {
	if t.Stopped() || t.transient() {
		return 0
	}
	deleting := t.ownerDeleting(o)
	rev, err := t.st.store.createGenerated(prefix, o)
	return t.record(Write{Verb: VerbCreate, Ref: RefOf(o), After: okObj(o, err), Rev: rev, Err: err, OwnerDeleting: deleting})
}

func (t *tx) CreateGeneratedAll(prefix string, objs []Obj) int64 {
	return CreateEach(t, prefix, objs)
}

// CreateEach is CreateGeneratedAll one create after another.
func CreateEach(w Writer, prefix string, objs []Obj) int64 {
	var rev int64
	for _, o := range objs {
		if w.Stopped() {
			break
		}
		rev = max(rev, w.CreateGenerated(prefix, o))
	}
	return rev
}

func (t *tx) Update(verb Verb, before, after Obj) int64 {
	return t.write(verb, before, after, before.meta().Version)
}

// updateAnyVersion writes without a precondition (last write wins), as a
// client that sends no resourceVersion does: the user's writes.
func (t *tx) updateAnyVersion(verb Verb, after Obj) int64 {
	return t.write(verb, t.st.store.get(RefOf(after)), after, -1)
}

func (t *tx) write(verb Verb, before, after Obj, expect int64) int64 {
	if t.Stopped() || t.transient() {
		return 0
	}
	ref := RefOf(after)
	rev, removed, err := t.st.store.update(verb, after, expect)
	if removed {
		after = nil // its last finalizer went: the update deleted it
	}
	return t.record(Write{Verb: verb, Ref: ref, Before: before, After: okObj(after, err), Rev: rev, Err: err})
}

// Bind sets a pod's node through the binding subresource: CAS on the pod,
// which must be unbound, and the node must exist and be Ready.
func (t *tx) Bind(pod *Pod, node string) int64 {
	if t.Stopped() || t.transient() {
		return 0
	}
	s := t.st.store
	p := pod.shallow().(*Pod)
	p.NodeName = node
	var err error
	var rev int64
	n, _ := s.get(Ref{Kind: KindNode, Name: node}).(*Node)
	if n == nil || !n.Ready {
		err = ErrNodeNotReady
	} else if cur, _ := s.get(RefOf(pod)).(*Pod); cur != nil && cur.NodeName != "" {
		err = errorFor(ErrConflict, RefOf(pod))
	} else {
		rev, _, err = s.update(VerbBind, p, pod.Version)
	}
	return t.record(Write{Verb: VerbBind, Ref: RefOf(pod), Before: pod, After: okObj(p, err), Rev: rev, Err: err})
}

// Delete deletes with a CAS and no propagation policy, as a controller
// does.
func (t *tx) Delete(o Obj) int64 { return t.delete(o, PropagateDefault, false) }

// DeleteWith deletes with a CAS and a propagation policy.
func (t *tx) DeleteWith(o Obj, p Propagation) int64 { return t.delete(o, p, false) }

// RemoveNow deletes with a CAS and no grace period: the object goes at
// once unless finalizers hold it.
func (t *tx) RemoveNow(o Obj) int64 { return t.delete(o, PropagateDefault, true) }

// delete runs store.delete; a delete that changes nothing records nothing.
func (t *tx) delete(o Obj, p Propagation, force bool) int64 {
	if t.Stopped() || t.transient() {
		return 0
	}
	r := RefOf(o)
	before, after, rev, err := t.st.store.delete(r, o.meta().Version, p, force)
	if err == nil && rev == 0 {
		return 0 // already being deleted as asked: nothing to write
	}
	return t.record(Write{Verb: VerbDelete, Ref: r, Before: before, After: after, Rev: rev, Err: err})
}

// local records a node-local effect; it counts as a write for crash points.
func (t *tx) local(verb Verb, what string) bool {
	if t.Stopped() {
		return false
	}
	t.record(Write{Verb: verb, Local: what})
	return true
}

func (t *tx) StartContainer(c Container) bool {
	rt := t.st.runtime[c.Node]
	if rt == nil || !t.local(VerbRuntimeStart, "containers/"+c.ID) {
		return false
	}
	for id, old := range rt.containers {
		if old.Pod == c.Pod && !old.Running {
			rt.remove(id)
		}
	}
	rt.add(&c)
	return true
}

func (t *tx) StopContainer(c Container) bool {
	rt := t.st.runtime[c.Node]
	if rt == nil || !t.local(VerbRuntimeStop, "containers/"+c.ID) {
		return false
	}
	rt.remove(c.ID)
	return true
}

func (t *tx) rules() map[string]Rule {
	if rt := t.st.runtime[NodeOf(t.actor)]; rt != nil {
		return rt.rules
	}
	return nil
}

func (t *tx) SetRule(service string, r Rule) bool {
	rules := t.rules()
	if rules == nil || !t.local(VerbProxySet, "rules/"+service) {
		return false
	}
	rules[service] = r
	return true
}

func (t *tx) DeleteRule(service string) bool {
	rules := t.rules()
	if rules == nil || !t.local(VerbProxyDel, "rules/"+service) {
		return false
	}
	delete(rules, service)
	return true
}

func okObj(o Obj, err error) Obj {
	if err != nil {
		return nil
	}
	return o
}

// SortObjects sorts objects of one kind as the model lists them: by key
// (namespace, then name), as a list from etcd comes; custom resources by
// type first (a view's order).
func SortObjects(os []Obj) {
	// Each key is built once: building two per comparison made sorting a
	// snapshot's 10,000 pods cost more than checking them.
	keyed := make([]keyedObj, len(os))
	for i, o := range os {
		keyed[i] = keyedObj{viewKey(RefOf(o)), o}
	}
	slices.SortFunc(keyed, func(a, b keyedObj) int { return strings.Compare(a.key, b.key) })
	for i, k := range keyed {
		os[i] = k.obj
	}
}

type keyedObj struct {
	key string
	obj Obj
}
