package model

import (
	"errors"
	"fmt"
)

// Store errors. They mirror the implementation's store and apiserver errors,
// so that a write fails in the model exactly when it fails over etcd.
var (
	ErrNotFound      = errors.New("model: not found")
	ErrAlreadyExists = errors.New("model: already exists")
	ErrConflict      = errors.New("model: resource version conflict")
	ErrNodeNotReady  = errors.New("model: binding target node missing or not ready")
)

// errorFor is a store error about r, worded as the implementation's
// writer words it.
func errorFor(sentinel error, r Ref) error { return fmt.Errorf("%w: %s", sentinel, r) }

// EventType is a watch event type.
type EventType uint8

const (
	Added EventType = iota
	Modified
	Deleted
)

func (t EventType) String() string {
	return [...]string{"ADDED", "MODIFIED", "DELETED"}[t]
}

// WatchEvent is one entry of the store's watch log. For Deleted, Obj is the last
// value and Rev the deletion's revision.
type WatchEvent struct {
	Type EventType
	Obj  Obj
	Rev  int64
	// Old is what the receiving component's view held under the event's
	// name before it (nil if nothing), as client-go's update handlers get
	// the old object; the store's log leaves it nil, Memory.Apply gives it.
	Old Obj
	// key and delivered are Obj's view key and the delivery's description
	// (Result.Delivered), made once by the store's log for every component
	// that takes the event; "" in an event made elsewhere.
	key, delivered string
}

// Verb names a write in traces.
type Verb string

const (
	VerbCreate       Verb = "CREATE"
	VerbUpdate       Verb = "UPDATE"
	VerbStatus       Verb = "STATUS"
	VerbBind         Verb = "BIND"
	VerbDelete       Verb = "DELETE"
	VerbFinalize     Verb = "FINALIZE" // a namespace's finalize subresource
	VerbRuntimeStart Verb = "RUNTIME-START"
	VerbRuntimeStop  Verb = "RUNTIME-STOP"
	VerbProxySet     Verb = "PROXY-SET"
	VerbProxyDel     Verb = "PROXY-DEL"
)

// Write is one effect of an action: a store write (successful or not), or a
// node-local effect on the runtime or the proxy rules.
type Write struct {
	Actor  string
	Verb   Verb
	Ref    Ref    // for store writes
	Local  string // for node-local effects: "containers/<id>" or "rules/<svc>"
	Before Obj    // nil for creates
	After  Obj    // nil for final deletes and failed writes
	Rev    int64  // revision of a successful store write (volatile)
	Err    error
	// OwnerDeleting: a create whose owner the creator's view showed being
	// deleted (a controller must not add dependents to it).
	OwnerDeleting bool
}

// Target is what the write is about, as written in traces.
func (w Write) Target() string {
	if w.Local != "" {
		return w.Local
	}
	return w.Ref.String()
}

func (w Write) String() string {
	s := w.Actor + " -> "
	if w.Local != "" {
		s += "node " + string(w.Verb) + " " + w.Local
	} else {
		s += "store " + string(w.Verb) + " " + w.Ref.String()
	}
	if w.Err != nil {
		s += " ! " + w.Err.Error()
	}
	return s
}

// store is the model of the apiserver over etcd: one revision counter, a
// map of current objects and the watch log.
type store struct {
	rev      int64
	objs     map[Ref]Obj
	nextUID  int64
	nodes    int            // node registrations so far: the next pod range
	genNames map[string]int // resource/namespace/generateName prefix -> next counter
	log      []WatchEvent   // log[i] has sequence number logBase+i
	logBase  int64
}

func newStore() *store {
	return &store{objs: make(map[Ref]Obj), genNames: make(map[string]int)}
}

func (s *store) clone() *store {
	c := *s
	c.objs = make(map[Ref]Obj, len(s.objs))
	for k, v := range s.objs {
		c.objs[k] = v
	}
	c.genNames = make(map[string]int, len(s.genNames))
	for k, v := range s.genNames {
		c.genNames[k] = v
	}
	c.log = append([]WatchEvent(nil), s.log...)
	return &c
}

func (s *store) get(r Ref) Obj { return s.objs[r] }

// logEnd is the sequence number the next event will get.
func (s *store) logEnd() int64 { return s.logBase + int64(len(s.log)) }

func (s *store) event(seq int64) WatchEvent { return s.log[seq-s.logBase] }

func (s *store) commit(t EventType, o Obj) int64 {
	s.rev++
	if t != Deleted {
		o.meta().Version = s.rev
	}
	r := RefOf(o)
	s.log = append(s.log, WatchEvent{Type: t, Obj: o, Rev: s.rev, key: viewKey(r), delivered: r.prefixed(t.String() + " ")})
	if t == Deleted {
		delete(s.objs, RefOf(o))
	} else {
		s.objs[RefOf(o)] = o
	}
	return s.rev
}

// trim drops log entries that every reader has passed.
func (s *store) trim(minCursor int64) {
	if n := minCursor - s.logBase; n > 1024 && n > int64(len(s.log))/2 {
		s.log = append([]WatchEvent(nil), s.log[n:]...)
		s.logBase = minCursor
	}
}

func (s *store) create(o Obj) (int64, error) {
	r := RefOf(o)
	if err := s.namespaceOpen(r); err != nil {
		return 0, err
	}
	if _, ok := s.objs[r]; ok {
		return 0, errorFor(ErrAlreadyExists, r)
	}
	if ns, ok := o.(*Namespace); ok {
		ns.Finalize = true // spec.finalizers: the namespace controller's
	}
	s.nextUID++
	o.meta().UID = s.nextUID
	return s.commit(Added, o), nil
}

// createGenerated names the object prefix+N with a per-prefix counter that
// never goes back, skipping names that are taken.
func (s *store) createGenerated(prefix string, o Obj) (int64, error) {
	if err := s.namespaceOpen(RefOf(o)); err != nil {
		return 0, err // no name is used up
	}
	counter := o.Kind().Resource() + "/" + o.meta().Namespace + "/" + prefix
	for {
		n := s.genNames[counter]
		s.genNames[counter] = n + 1
		o.meta().Name = GeneratedName(prefix, n)
		if _, taken := s.objs[RefOf(o)]; !taken {
			return s.create(o)
		}
	}
}

// update stores o if the current version equals expect (expect < 0: any).
// The deletion fields are the server's and stay as stored. An update that
// adds a finalizer to an object being deleted is refused. One that leaves
// an object being deleted with no finalizers, and no kubelet to wait for,
// removes it as the apiserver does: the object goes as it was stored, and
// the update itself is not written (removed says so, and rev is the
// deletion's).
func (s *store) update(verb Verb, o Obj, expect int64) (rev int64, removed bool, err error) {
	r := RefOf(o)
	cur, ok := s.objs[r]
	if !ok {
		return 0, false, errorFor(ErrNotFound, r)
	}
	if expect >= 0 && cur.meta().Version != expect {
		return 0, false, errorFor(ErrConflict, r)
	}
	cm, m := cur.meta(), o.meta()
	if cm.Deleting && addsFinalizer(cm.Finalizers, m.Finalizers) {
		return 0, false, errorFor(ErrFinalizerForbidden, r)
	}
	m.UID, m.Deleting, m.Graceful = cm.UID, cm.Deleting, cm.Graceful
	o = namespaceUpdate(verb, cur, o)
	m = o.meta()
	if m.Deleting && !m.Graceful && len(m.Finalizers) == 0 && !namespaceFinalizing(o) {
		// Its last finalizer goes: the object is deleted as it is stored,
		// and the update is not written (upstream's errEmptiedFinalizers).
		return s.commit(Deleted, cur), true, nil
	}
	return s.commit(Modified, o), false, nil
}

// delete is a DELETE with a version precondition (expect < 0: any) and a
// propagation policy; force is gracePeriodSeconds=0. As the apiserver:
//   - the GC finalizers are set by the policy (deletionFinalizers);
//   - an object left with finalizers stays, marked for deletion (a pod
//     its kubelet may be running keeps waiting for it, unless forced);
//   - else a pod its kubelet may be running is marked, unless forced;
//   - else the object goes.
//
// A pod already waiting for its kubelet, and a delete that would change
// nothing, write nothing: rev is 0. A removal has no after.
func (s *store) delete(r Ref, expect int64, p Propagation, force bool) (before, after Obj, rev int64, err error) {
	cur, ok := s.objs[r]
	if !ok {
		return nil, nil, 0, errorFor(ErrNotFound, r)
	}
	if expect >= 0 && cur.meta().Version != expect {
		return nil, nil, 0, errorFor(ErrConflict, r)
	}
	cm := cur.meta()
	if cm.Deleting && cm.Graceful && !force {
		return cur, nil, 0, nil
	}
	fins := deletionFinalizers(cm.Finalizers, p)
	// Only a first delete starts a grace period: one already being deleted
	// has none left (it would be pending above).
	graceful := !force && !cm.Deleting && s.needsGracefulDelete(cur)
	if len(fins) == 0 && !graceful && !namespaceFinalizing(cur) {
		return cur, nil, s.commit(Deleted, cur), nil
	}
	next := cur.shallow()
	m := next.meta()
	m.Finalizers = fins
	if !cm.Deleting {
		m.Deleting, m.Graceful = true, graceful
	} else if force {
		m.Graceful = false
	}
	if m.Graceful == cm.Graceful && m.Deleting == cm.Deleting && sameFinalizerSet(fins, cm.Finalizers) {
		return cur, nil, 0, nil
	}
	return cur, next, s.commit(Modified, next), nil
}

// needsGracefulDelete: a pod that a kubelet may be running is only marked,
// and its kubelet removes it once the container is stopped.
func (s *store) needsGracefulDelete(o Obj) bool {
	p, ok := o.(*Pod)
	if !ok || p.NodeName == "" {
		return false
	}
	_, nodeExists := s.objs[Ref{Kind: KindNode, Name: p.NodeName}]
	return nodeExists
}
