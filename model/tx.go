package model

import (
	"errors"
	"sort"
)

// errCrashed stops a reconcile at the crash point of a crash-after-k action.
var errCrashed = errors.New("model: component crashed")

// tx runs one action's writes in order. A failed write stops the reconcile
// (the key is requeued); a crash point stops it after the k-th write.
type tx struct {
	st     *State
	actor  string
	writes []Write
	limit  int // writes allowed before the crash; <0: no crash
	failed bool
}

func (t *tx) stopped() bool {
	return t.failed || (t.limit >= 0 && t.countedWrites() >= t.limit)
}

// countedWrites is the number of attempted writes, the unit of crash-after-k.
func (t *tx) countedWrites() int { return len(t.writes) }

func (t *tx) record(w Write) {
	w.Actor = t.actor
	t.writes = append(t.writes, w)
	if w.Err != nil {
		t.failed = true
	}
}

func (t *tx) create(o Obj) int64 {
	if t.stopped() {
		return 0
	}
	rev, err := t.st.store.create(o)
	t.record(Write{Verb: VerbCreate, Ref: RefOf(o), After: okObj(o, err), Rev: rev, Err: err})
	return rev
}

func (t *tx) createGenerated(prefix string, o Obj) int64 {
	if t.stopped() {
		return 0
	}
	rev, err := t.st.store.createGenerated(prefix, o)
	t.record(Write{Verb: VerbCreate, Ref: RefOf(o), After: okObj(o, err), Rev: rev, Err: err})
	return rev
}

// update writes o (a modified shallow copy of before) with a CAS against the
// version the writer saw.
func (t *tx) update(verb Verb, before, o Obj) int64 {
	if t.stopped() {
		return 0
	}
	rev, err := t.st.store.update(o, before.meta().Version)
	t.record(Write{Verb: verb, Ref: RefOf(o), Before: t.st.store.beforeOf(before, err), After: okObj(o, err), Rev: rev, Err: err})
	return rev
}

// updateAnyVersion writes without a precondition (last write wins), as a
// client that sends no resourceVersion does.
func (t *tx) updateAnyVersion(verb Verb, o Obj) int64 {
	if t.stopped() {
		return 0
	}
	before := t.st.store.get(RefOf(o))
	rev, err := t.st.store.update(o, -1)
	t.record(Write{Verb: verb, Ref: RefOf(o), Before: before, After: okObj(o, err), Rev: rev, Err: err})
	return rev
}

// bind sets a pod's node through the binding subresource: CAS on the pod,
// which must be unbound, and the node must exist and be Ready.
func (t *tx) bind(pod *Pod, node string) int64 {
	if t.stopped() {
		return 0
	}
	s := t.st.store
	n, _ := s.get(Ref{KindNode, node}).(*Node)
	var err error
	var rev int64
	p := pod.shallow().(*Pod)
	p.NodeName = node
	if n == nil || !n.Ready {
		err = ErrNodeNotReady
	} else if cur, _ := s.get(RefOf(pod)).(*Pod); cur != nil && cur.NodeName != "" {
		err = ErrConflict
	} else {
		rev, err = s.update(p, pod.Version)
	}
	t.record(Write{Verb: VerbBind, Ref: RefOf(pod), Before: s.beforeOf(pod, err), After: okObj(p, err), Rev: rev, Err: err})
	return rev
}

// delete deletes with a CAS. Bound pods on existing nodes are only marked
// (graceful deletion); everything else goes at once.
func (t *tx) delete(o Obj) int64 {
	if t.stopped() {
		return 0
	}
	s := t.st.store
	r := RefOf(o)
	cur := s.get(r)
	if cur != nil && cur.meta().Version == o.meta().Version && s.needsGracefulDelete(cur) {
		if cur.meta().Deleting {
			return 0 // already terminating: nothing to write
		}
		m := cur.shallow()
		m.meta().Deleting = true
		rev, err := s.update(m, cur.meta().Version)
		t.record(Write{Verb: VerbDelete, Ref: r, Before: cur, After: okObj(m, err), Rev: rev, Err: err})
		return rev
	}
	old, rev, err := s.remove(r, o.meta().Version)
	t.record(Write{Verb: VerbDelete, Ref: r, Before: old, Rev: rev, Err: err})
	return rev
}

// removeNow deletes for good with a CAS, whatever the object's state: the
// kubelet's final delete, or a force delete.
func (t *tx) removeNow(o Obj) int64 {
	if t.stopped() {
		return 0
	}
	old, rev, err := t.st.store.remove(RefOf(o), o.meta().Version)
	t.record(Write{Verb: VerbDelete, Ref: RefOf(o), Before: old, Rev: rev, Err: err})
	return rev
}

// local records a node-local effect (runtime or proxy); it counts as a write
// for crash points.
func (t *tx) local(verb Verb, what string) bool {
	if t.stopped() {
		return false
	}
	t.record(Write{Verb: verb, Local: what})
	return true
}

func okObj(o Obj, err error) Obj {
	if err != nil {
		return nil
	}
	return o
}

// beforeOf is the stored value a successful write replaced (the writer's
// view of it otherwise).
func (s *store) beforeOf(seen Obj, err error) Obj {
	if err != nil {
		return nil
	}
	return seen
}

func sortObjs(os []Obj) {
	sort.Slice(os, func(i, j int) bool { return os[i].meta().Name < os[j].meta().Name })
}
