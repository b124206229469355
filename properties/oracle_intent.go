package properties

import (
	"fmt"
	"strings"

	"github.com/converge-dev/converge/model"
)

// violationf is an oracle's failure, reported as the invariants' are.
func violationf(name, format string, args ...any) error {
	return fmt.Errorf("%w: %s: %s", model.ErrViolation, name, fmt.Sprintf(format, args...))
}

// intent is what the user last asked of one object: its user-owned fields
// as the user's own write left them, or its deletion.
type intent struct {
	deleted bool
	fields  map[string]string // userFields of the user's last write
	step    int               // 1-based step of that action
	action  model.Action
	obj     model.Obj // the user's last write, for the differential run
}

// Intents remembers every user action's intent — replicas, image,
// selector, labels, deletions — so that a controller that reverts a user's
// change is caught at the write that reverts it, and an end state that does
// not reflect the last intent fails even when it looks converged (Converged
// compares against the stored spec, which a revert has changed). It also
// remembers which objects the user created, for the leak oracle.
type Intents struct {
	last    map[model.Ref]*intent
	byUser  map[int64]bool // UIDs of the objects the user created
	created map[int64]string
	step    int
	// orphans are the UIDs the garbage collector freed of their owner, as
	// a user's orphan delete asks: leftovers to the differential.
	orphans map[int64]bool
}

// NewIntents starts the intents of one run.
func NewIntents() *Intents {
	return &Intents{last: map[model.Ref]*intent{}, byUser: map[int64]bool{}, created: map[int64]string{}, orphans: map[int64]bool{}}
}

// userKinds are the kinds whose spec the user owns.
func userKind(k model.Kind) bool {
	return k == model.KindDeployment || k == model.KindService || k == model.KindStatefulSet
}

// userFields are the fields a user owns: the spec and the labels.
func userFields(o model.Obj) map[string]string {
	s := &model.Snapshot{Objects: map[model.Ref]model.Obj{}}
	out := map[string]string{}
	for _, f := range s.Fields(o) {
		if strings.HasPrefix(f.Name, "spec.") || f.Name == "metadata.labels" {
			out[f.Name] = f.Value
		}
	}
	return out
}

// Observe records one applied action's writes. A successful write by
// anyone but the user that leaves a user-owned field different from the
// user's last write reverts the user's intent: it fails, naming both.
func (in *Intents) Observe(a model.Action, writes []model.Write) error {
	in.step++
	for _, w := range writes {
		if w.Err != nil || w.Local != "" {
			continue
		}
		if w.Verb == model.VerbCreate && w.After != nil {
			in.created[model.MetaOf(w.After).UID] = w.Actor
			in.byUser[model.MetaOf(w.After).UID] = w.Actor == "user"
		}
		if orphaned(w) {
			in.byUser[model.MetaOf(w.After).UID] = true // the user's orphan delete freed it: theirs now
			in.orphans[model.MetaOf(w.After).UID] = true
		} else if w.After != nil && model.MetaOf(w.After).Owner.UID != 0 {
			delete(in.orphans, model.MetaOf(w.After).UID) // adopted again
		}
		if w.Ref.Kind == model.KindNamespace && ((w.Actor == "user" && w.Verb == model.VerbDelete) || w.After == nil) {
			in.namespaceDeleted(a, w.Ref.Name) // asked for, and again once done
		}
		if !userKind(w.Ref.Kind) {
			continue
		}
		if w.Actor == "user" {
			in.observeUser(a, w)
			continue
		}
		last := in.last[w.Ref]
		if last == nil || last.deleted || w.After == nil || model.MetaOf(w.After).UID != model.MetaOf(last.obj).UID {
			continue
		}
		got := userFields(w.After)
		for name, want := range last.fields {
			if got[name] != want {
				return violationf("controllers keep the user's intent", "%s wrote %s %s=%q (step %d), reverting the user's %q (step %d: %s)", w.Actor, w.Ref, name, got[name], in.step, want, last.step, last.action)
			}
		}
		for name, v := range got {
			if _, ok := last.fields[name]; !ok {
				return violationf("controllers keep the user's intent", "%s wrote %s %s=%q (step %d), a field the user left unset (step %d: %s)", w.Actor, w.Ref, name, v, in.step, last.step, last.action)
			}
		}
	}
	return nil
}

// orphaned: the garbage collector removed w's object's owner reference,
// as an orphan delete of the owner asks.
func orphaned(w model.Write) bool {
	return w.Actor == model.GarbageCollector && w.Before != nil && w.After != nil &&
		model.MetaOf(w.Before).Owner.UID != 0 && model.MetaOf(w.After).Owner.UID == 0
}

// namespaceDeleted: deleting a namespace deletes what the user put in it,
// written before the namespace went (a write while it was Terminating
// included).
func (in *Intents) namespaceDeleted(a model.Action, ns string) {
	for ref, it := range in.last {
		if ref.Namespace == ns && !it.deleted {
			in.last[ref] = &intent{step: in.step, action: a, obj: it.obj, deleted: true}
		}
	}
}

func (in *Intents) observeUser(a model.Action, w model.Write) {
	it := &intent{step: in.step, action: a, obj: w.After}
	// A write to an object being deleted does not undo its deletion.
	if w.After == nil || w.Verb == model.VerbDelete || model.MetaOf(w.After).Deleting {
		it.deleted = true
	} else {
		it.fields = userFields(w.After)
	}
	in.last[w.Ref] = it
}

// Converged checks the end state against the last intents: a deleted
// object is gone (or still held by a user's finalizer), any other object the user wrote exists with the fields
// the user last gave it.
func (in *Intents) Converged(s *model.Snapshot) error {
	for ref, it := range in.last {
		cur := s.Objects[ref]
		switch {
		case it.deleted && cur != nil && !model.MetaOf(cur).Deleting: // a user's finalizer may hold it
			return violationf("the end state reflects the user's intent", "%s exists, but the user deleted it last (step %d: %s)", ref, it.step, it.action)
		case it.deleted:
		case cur == nil && !namespaceLive(s, ref.Namespace):
			// The namespace is being deleted: it will take it anyway.
		case cur == nil:
			return violationf("the end state reflects the user's intent", "%s is gone, but the user did not delete it (last: step %d: %s)", ref, it.step, it.action)
		default:
			got := userFields(cur)
			for name, want := range it.fields {
				if got[name] != want {
					return violationf("the end state reflects the user's intent", "%s %s=%q, but the user last set %q (step %d: %s)", ref, name, got[name], want, it.step, it.action)
				}
			}
		}
	}
	return nil
}

// Leaks is the no-leak oracle at convergence: every pod and ReplicaSet a
// controller created has a live owner, unless an orphan delete freed it. An ownerless pod keeps running and
// serving forever: a controller that creates a child and sets its owner in
// a second write leaks one when it crashes in between, and Converged,
// which looks only at objects that name an owner, does not see it.
func (in *Intents) Leaks(s *model.Snapshot) error {
	for _, k := range []model.Kind{model.KindPod, model.KindReplicaSet} {
		for _, o := range s.List(k) {
			m := model.MetaOf(o)
			if in.byUser[m.UID] || m.Deleting { // converged, so a deleting one is a user's finalizer's to hold
				continue
			}
			ow := m.Owner
			cur := s.Objects[model.OwnerRef(m)]
			if ow.UID != 0 && cur != nil && model.MetaOf(cur).UID == ow.UID {
				continue
			}
			who := in.created[m.UID]
			if who == "" {
				who = "a controller"
			}
			if ow.UID == 0 {
				return violationf("nothing a controller created leaks", "%s, created by %s, has no owner", model.RefOf(o), who)
			}
			return violationf("nothing a controller created leaks", "%s, created by %s, outlives its owner %s", model.RefOf(o), who, model.OwnerRef(m))
		}
	}
	return nil
}

// namespaceLive: ns is the default namespace, or exists and is not
// Terminating.
func namespaceLive(s *model.Snapshot, ns string) bool {
	if ns == model.DefaultNamespace {
		return true
	}
	o := s.Objects[model.Ref{Kind: model.KindNamespace, Name: ns}]
	return o != nil && !model.MetaOf(o).Deleting
}
