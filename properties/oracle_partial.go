package properties

import (
	"fmt"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/converge-dev/converge/impl/operator"
	"github.com/converge-dev/converge/model"
)

// A reconcile may make part of what its input asks and then crash or fail
// (the ConfigMap's create lands, then the operator dies before the
// Deployment's). When the user's next write tells the operator to leave
// what it owns alone (spec.paused, spec.suspend), a correct operator keeps
// what the partial reconcile made: by the pause convention a paused
// controller makes no change, it does not undo one. The reference never
// met that input as this run's operator did: an input the operator did not
// settle is replayed with no settling between it and the next
// (oracle_history.go), so the reference never makes the object.
//
// The differential therefore leaves out an object that only this run has
// when each of the operator's writes of it came from a reconcile that did
// not settle (it crashed, failed or asked to run again), holding an owner
// input that no reconcile settled later and that is not the owner's last.
//
// The hole is a leak made by such reconciles alone. It stays small:
//   - an input that a retry settles is settled in the reference too, so a
//     second object the retry makes (a generated name after a crash) is
//     still reported, and so is the first;
//   - a write from a settled reconcile (one made while paused) is never
//     exempt, nor is one holding the owner's last input, which the
//     reference always settles;
//   - an object whose owner has gone, or was made again, is never exempt:
//     one without an ownerReference is a leak.
//
// Not exempt, and so still a false alarm: an object that a partial
// reconcile updated (not made) before the pause reads as a difference.

// partialWrite is one of the operator's writes of an object: the owner
// input its reconcile held (nil: none) and whether the reconcile settled.
type partialWrite struct {
	held    *historyInput
	settled bool
}

// partialOnly reports whether every write in ws came from an unsettled
// reconcile of an owner input that never settled, of an owner that is
// still there, the same incarnation.
func (h *history) partialOnly(ws []partialWrite) bool {
	for _, w := range ws {
		if w.settled || w.held == nil || w.held.Settle || w.held.last {
			return false
		}
		if now := h.last(w.held.Owner); now == nil || now.Verb != "set" || now.uid != w.held.uid {
			return false // the owner went: what it left is a leak
		}
	}
	return len(ws) > 0
}

// heldInput is the owner's user write that view v held, if any.
func (h *history) heldInput(v reconcileView, namespace, name string) *historyInput {
	for n := len(h.inputs) - 1; n >= 0; n-- {
		in := h.inputs[n]
		if in.Verb == "set" && in.seq < v.seq && in.Owner.Namespace == namespace && in.Owner.Name == name && h.held(v, n) {
			return in
		}
	}
	return nil
}

// noteWrites records the writes of a reconcile that is done, as its view
// held them, and whether it settled.
func (h *history) noteWrites(v reconcileView, settled bool) {
	if h.writes == nil {
		h.writes = map[string][]partialWrite{}
	}
	for _, w := range v.writes {
		key := w.Resource + "/" + w.Name
		h.writes[key] = append(h.writes[key], partialWrite{held: v.held, settled: settled})
	}
}

// endKilled ends the views of the parked reconciles a crash killed:
// they did not settle.
func (h *history) endKilled(killed []operator.Item) {
	for _, it := range killed {
		if v, ok := h.views[it]; ok {
			delete(h.views, it)
			h.noteWrites(v, false)
		}
	}
}

// withoutPartial is got without the objects that only this run has and
// that partial reconciles alone wrote; written names each of got's keys
// as the operator's writes name it.
func (r *operatorRun) withoutPartial(got, want map[string]map[string]any, written map[string]string) map[string]map[string]any {
	out := make(map[string]map[string]any, len(got))
	for key, o := range got {
		if _, both := want[key]; !both && r.hist.partialOnly(r.hist.writes[written[key]]) {
			continue
		}
		out[key] = o
	}
	return out
}

// stateNamed is state, with each key's object named as the operator's
// writes name it ("configmaps/ns/name", or "configmaps/name" in the
// default namespace).
func (r *operatorRun) stateNamed(kinds []schema.GroupVersionKind) (map[string]map[string]any, map[string]string) {
	out, names := map[string]map[string]any{}, map[string]string{}
	for _, gvk := range kinds {
		resource := r.resourceOf(gvk)
		for _, o := range r.list(gvk) {
			key := gvk.Kind + " " + model.Key(o.GetNamespace(), maskedName(&o))
			for n := 2; out[key] != nil; n++ { // two generated names mask alike
				key = fmt.Sprintf("%s #%d", key, n)
			}
			out[key] = maskObject(r.normalized(gvk, o.Object))
			names[key] = resource + "/" + traceName(o.GetNamespace(), o.GetName())
		}
	}
	return out, names
}
