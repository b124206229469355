package properties

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"pgregory.net/rapid"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/converge-dev/converge/impl/operator"
	"github.com/converge-dev/converge/model"
)

// The differential oracle's reference run replays the run's inputs, in
// order, fault-free and sequentially: each input is applied once the
// previous one has settled. An operator's end state may depend on its
// inputs' history, not only on the last ones (a paused resource keeps
// what was made before the pause), so the reference replays the history.
//
// The inputs are the users' writes of custom resources (a create or an
// update sets the resource's spec, labels and annotations; a delete) and
// another writer's drift of what the operator owns (a delete, or the
// fields it changed): drift is an input, because an operator that leaves
// what it owns alone while told to (paused, suspended) keeps it, and the
// reference must then keep it too. A correct operator undoes any other
// drift, in this run and in the reference alike.
//
// A correct operator may never act on an input that a later one replaced
// before it looked (a create paused at once makes nothing), so an input
// settles in the reference only if this run's operator settled it: a
// reconcile of its owner, begun once the operator's view held the input,
// returned success before the owner's next input. An input it did not
// settle is applied right before the owner's next input, with no settling
// between, which is what this run's operator saw. A delete always
// settles: a name is free again only once its object has gone.

// historyInput is one input of the run.
type historyInput struct {
	Owner  ownerKey                   // the custom resource it is, or drifts the child of
	Verb   string                     // "set", "delete", "drift delete", "drift patch"
	Object *unstructured.Unstructured `json:",omitempty"` // the child drifted
	Body   map[string]any             `json:",omitempty"` // set: spec, labels, annotations; drift patch: a merge patch
	Settle bool

	uid  string
	rev  int64 // the resource's version after the write (set); the child's after a drift patch
	seq  int   // events before it
	last bool  // no later input of the owner yet
	// asOf is the owner's earlier input that the operator's view still
	// held when it settled this drift: its view of the owner lagged
	// behind the owner's later writes, so it met the drift as if made
	// right after asOf, and the reference replays it there.
	asOf *historyInput
}

// ownerKey names a custom resource by kind, namespace and name.
type ownerKey struct {
	Kind      schema.GroupVersionKind
	Namespace string
	Name      string
}

// reconcileView is what the operator's view held when a reconcile began.
type reconcileView struct {
	seq      int
	revs     map[schema.GroupKind]int64
	uids     map[schema.GroupKind]string
	children map[*historyInput]cachedChild // each drifted child of the owner, as the view held it
	held     *historyInput                 // the owner's user write it held
	writes   []operator.Written            // the reconcile's writes so far (oracle_partial.go)
}

// cachedChild is a drifted child as the operator's informer held it.
type cachedChild struct {
	uid string
	rev int64
	ok  bool
}

// seen reports whether the view held drift d: the child gone (or
// replaced) after a delete, at or past its drifted version after a patch.
func (c cachedChild) seen(d *historyInput) bool {
	if d.Verb == "drift delete" {
		return !c.ok || c.uid != d.uid
	}
	return c.ok && c.uid == d.uid && c.rev >= d.rev
}

// history is the run's inputs, as the reference replays them.
type history struct {
	inputs []*historyInput
	views  map[operator.Item]reconcileView
	writes map[string][]partialWrite // the operator's writes, by resource/name (oracle_partial.go)
}

// noteInput records a user's write of k's custom resource namespace/name,
// as the store has it after the write; an unchanged resource (a refused
// or conflicting write) is no input.
func (r *operatorRun) noteInput(k customKind, namespace, name string) {
	if r.reference {
		return
	}
	cur := &unstructured.Unstructured{}
	cur.SetGroupVersionKind(k.gvk)
	in := &historyInput{Owner: ownerKey{k.gvk, namespace, name}, Verb: "delete", seq: len(r.events), last: true}
	switch err := r.user.Get(r.ctx, client.ObjectKey{Namespace: namespace, Name: name}, cur); {
	case err == nil && cur.GetDeletionTimestamp() == nil:
		in.Verb, in.uid = "set", string(cur.GetUID())
		in.rev, _ = strconv.ParseInt(cur.GetResourceVersion(), 10, 64)
		in.Body = map[string]any{"spec": cur.Object["spec"], "labels": cur.GetLabels(), "annotations": cur.GetAnnotations()}
	case err != nil && !apierrors.IsNotFound(err):
		r.fail("get %s %s: %v", k.resource, name, err)
	}
	prev := r.hist.last(in.Owner)
	if prev == nil && in.Verb == "delete" {
		return // nothing was there
	}
	if prev != nil && prev.Verb == in.Verb && reflect.DeepEqual(prev.Body, in.Body) && prev.uid == in.uid {
		return
	}
	r.hist.add(in)
}

// last is the latest user input of owner.
func (h *history) last(owner ownerKey) *historyInput {
	for i := len(h.inputs) - 1; i >= 0; i-- {
		if in := h.inputs[i]; in.Owner == owner && !strings.HasPrefix(in.Verb, "drift") {
			return in
		}
	}
	return nil
}

// add appends in, the owner's last input so far.
func (h *history) add(in *historyInput) {
	for _, e := range h.inputs {
		if e.Owner == in.Owner {
			e.last = false
		}
	}
	h.inputs = append(h.inputs, in)
}

// driftNoted is drift, with what it changed recorded as an input.
func (r *operatorRun) driftNoted(rt *rapid.T) {
	before := r.owned()
	if rapid.Bool().Draw(rt, "another manager's fields?") {
		r.driftOthers(rt)
	} else {
		r.drift(rt)
	}
	after := r.owned()
	for key, b := range before {
		a, present := after[key]
		if present && a.GetResourceVersion() == b.GetResourceVersion() {
			continue
		}
		owner, ok := r.customOwner(b)
		if !ok {
			continue
		}
		in := &historyInput{Owner: owner, Verb: "drift delete", seq: len(r.events), last: true, Object: identity(b), uid: string(b.GetUID())}
		if present {
			in.Verb, in.Body = "drift patch", mergePatch(drifted(b.Object), drifted(a.Object))
			in.rev, _ = strconv.ParseInt(a.GetResourceVersion(), 10, 64)
			if len(in.Body) == 0 {
				continue
			}
		}
		r.hist.inputs = append(r.hist.inputs, in)
	}
}

// owned is the objects the operator watches that a custom resource owns,
// by kind and key.
func (r *operatorRun) owned() map[string]*unstructured.Unstructured {
	out := map[string]*unstructured.Unstructured{}
	for _, gvk := range r.host.Watched() {
		if r.isCustom(gvk) {
			continue
		}
		for _, o := range r.list(gvk) {
			if _, ok := r.customOwner(&o); ok && o.GetDeletionTimestamp() == nil {
				o.SetGroupVersionKind(gvk)
				out[gvk.Kind+" "+model.Key(o.GetNamespace(), o.GetName())] = o.DeepCopy()
			}
		}
	}
	return out
}

// customOwner is the custom resource that controls o.
func (r *operatorRun) customOwner(o *unstructured.Unstructured) (ownerKey, bool) {
	for _, ref := range o.GetOwnerReferences() {
		gv, err := schema.ParseGroupVersion(ref.APIVersion)
		if err != nil || ref.Controller == nil || !*ref.Controller || !r.isCustom(gv.WithKind(ref.Kind)) {
			continue
		}
		for _, k := range r.kinds {
			if k.gvk.GroupKind() == gv.WithKind(ref.Kind).GroupKind() {
				ns := o.GetNamespace()
				if !k.namespaced {
					ns = ""
				}
				return ownerKey{k.gvk, ns, ref.Name}, true
			}
		}
	}
	return ownerKey{}, false
}

// identity is o's kind, namespace and name.
func identity(o *unstructured.Unstructured) *unstructured.Unstructured {
	out := &unstructured.Unstructured{}
	out.SetGroupVersionKind(o.GroupVersionKind())
	out.SetNamespace(o.GetNamespace())
	out.SetName(o.GetName())
	return out
}

// drifted is what another writer changes of an object: all but its
// status and its server-kept metadata.
func drifted(obj map[string]any) map[string]any {
	m := deepCopyJSON(obj)
	delete(m, "status")
	meta, _ := m["metadata"].(map[string]any)
	m["metadata"] = map[string]any{"labels": meta["labels"], "annotations": meta["annotations"]}
	return m
}

// mergePatch is the JSON merge patch (RFC 7386) that turns a into b.
func mergePatch(a, b map[string]any) map[string]any {
	out := map[string]any{}
	for k, bv := range b {
		av, ok := a[k]
		am, aok := av.(map[string]any)
		bm, bok := bv.(map[string]any)
		switch {
		case ok && aok && bok:
			if p := mergePatch(am, bm); len(p) > 0 {
				out[k] = p
			}
		case !ok || !reflect.DeepEqual(av, bv):
			out[k] = bv
		}
	}
	for k := range a {
		if _, ok := b[k]; !ok {
			out[k] = nil
		}
	}
	return out
}

// applyMergePatch applies patch to obj in place.
func applyMergePatch(obj, patch map[string]any) {
	for k, v := range patch {
		pm, ok := v.(map[string]any)
		switch {
		case v == nil:
			delete(obj, k)
		case ok:
			om, _ := obj[k].(map[string]any)
			if om == nil {
				om = map[string]any{}
			}
			applyMergePatch(om, pm)
			obj[k] = om
		default:
			obj[k] = v
		}
	}
}

// beginReconcile notes what the operator's view holds as it reconciles.
func (r *operatorRun) beginReconcile(it operator.Item) {
	if r.reference {
		return
	}
	v := reconcileView{seq: len(r.events), revs: map[schema.GroupKind]int64{}, uids: map[schema.GroupKind]string{}, children: map[*historyInput]cachedChild{}}
	for _, k := range r.kinds {
		if uid, rev, ok := r.host.Cached(k.gvk.GroupKind(), it.Request.Namespace, it.Request.Name); ok {
			v.revs[k.gvk.GroupKind()], _ = strconv.ParseInt(rev, 10, 64)
			v.uids[k.gvk.GroupKind()] = uid
		}
	}
	for _, in := range r.hist.inputs {
		if in.Object == nil || in.Settle || in.Owner.Namespace != it.Request.Namespace || in.Owner.Name != it.Request.Name {
			continue
		}
		var c cachedChild
		var rev string
		c.uid, rev, c.ok = r.host.Cached(in.Object.GroupVersionKind().GroupKind(), in.Object.GetNamespace(), in.Object.GetName())
		c.rev, _ = strconv.ParseInt(rev, 10, 64)
		v.children[in] = c
	}
	v.held = r.hist.heldInput(v, it.Request.Namespace, it.Request.Name)
	if r.hist.views == nil {
		r.hist.views = map[operator.Item]reconcileView{}
	}
	r.hist.views[it] = v
}

// endReconcile marks the inputs of the reconciled resource that the
// reconcile settled, once it is done: a user's write, if the reconcile's
// view held that version of the resource (its view may lag behind the
// next write); a drift, if the view held the drifted child as drifted
// and the owner as it was when drifted, or as one of its earlier writes
// (then the drift is replayed after that write: see asOf).
func (r *operatorRun) endReconcile(it operator.Item, out operator.Outcome) {
	if r.reference {
		return
	}
	v, ok := r.hist.views[it]
	if ok {
		v.writes = append(v.writes, out.Writes...)
	}
	if out.Parked {
		if ok {
			r.hist.views[it] = v
		}
		return
	}
	delete(r.hist.views, it)
	r.hist.endKilled(out.Killed)
	if !ok {
		return
	}
	r.hist.noteWrites(v, out.Settled)
	if !out.Settled {
		return
	}
	for n, in := range r.hist.inputs {
		if in.Settle || in.Owner.Namespace != it.Request.Namespace || in.Owner.Name != it.Request.Name || in.seq >= v.seq {
			continue
		}
		if in.Verb == "set" {
			in.Settle = r.hist.held(v, n)
			continue
		}
		if c, ok := v.children[in]; !ok || !c.seen(in) {
			continue
		}
		for m := n - 1; m >= 0; m-- {
			state := r.hist.inputs[m]
			if state.Owner != in.Owner || strings.HasPrefix(state.Verb, "drift") {
				continue
			}
			if state.Verb != "set" {
				break // the owner was deleted before: no earlier view of it counts
			}
			if r.hist.held(v, m) {
				in.Settle = true
				if m != r.hist.indexOf(r.hist.stateBefore(n)) {
					in.asOf = state
				}
				break
			}
		}
	}
}

// held reports whether view v held the owner as set by input n: that
// resource, at or past n's version and before its next write's.
func (h *history) held(v reconcileView, n int) bool {
	in := h.inputs[n]
	gk := in.Owner.Kind.GroupKind()
	return v.uids[gk] == in.uid && v.revs[gk] >= in.rev && v.revs[gk] < h.nextRev(n, in.uid)
}

// indexOf is in's place among the inputs, -1 if none.
func (h *history) indexOf(in *historyInput) int {
	return slices.Index(h.inputs, in)
}

// stateBefore is the owner's latest user input before input n.
func (h *history) stateBefore(n int) *historyInput {
	for i := n - 1; i >= 0; i-- {
		if e := h.inputs[i]; e.Owner == h.inputs[n].Owner && !strings.HasPrefix(e.Verb, "drift") {
			return e
		}
	}
	return nil
}

// nextRev is the version of the owner's next user write of uid after
// input n (the largest one if none): a view at or past it holds that one.
func (h *history) nextRev(n int, uid string) int64 {
	for _, e := range h.inputs[n+1:] {
		if e.Owner == h.inputs[n].Owner && e.Verb == "set" && e.uid == uid {
			return e.rev
		}
	}
	return math.MaxInt64
}

// replay is the inputs as the reference applies them: a drift met
// against an earlier write moved to right after that write, then each
// input the operator did not settle moved to right before its owner's
// next input.
func (h *history) replay() []historyInput {
	var out []historyInput
	deferred := map[ownerKey][]historyInput{}
	for _, in := range h.metOrder() {
		e := *in
		e.Settle = in.Settle || in.last || in.Verb == "delete"
		if !e.Settle {
			deferred[in.Owner] = append(deferred[in.Owner], e)
			continue
		}
		out = append(out, deferred[in.Owner]...)
		delete(deferred, in.Owner)
		out = append(out, e)
	}
	return out
}

// metOrder is the inputs in the order the operator met them: each drift
// with an asOf right after it (after the drifts before it there).
func (h *history) metOrder() []*historyInput {
	out := make([]*historyInput, 0, len(h.inputs))
	for _, in := range h.inputs {
		if in.asOf != nil {
			continue
		}
		out = append(out, in)
		for _, d := range h.inputs {
			if d.asOf == in {
				out = append(out, d)
			}
		}
	}
	return out
}

// replayInput applies one input in the reference run.
func (r *operatorRun) replayInput(in historyInput) {
	r.rt.Helper()
	obj := &unstructured.Unstructured{}
	key := client.ObjectKey{Namespace: in.Owner.Namespace, Name: in.Owner.Name}
	obj.SetGroupVersionKind(in.Owner.Kind)
	if in.Object != nil {
		key = client.ObjectKeyFromObject(in.Object)
		obj.SetGroupVersionKind(in.Object.GroupVersionKind())
	}
	what := strings.ToLower(obj.GetKind()) + "/" + key.String()
	settle := ""
	if !in.Settle {
		settle = "; the operator did not settle it in the run"
	}
	r.record("reference", in.Verb, what, compactJSON(in.Body)+settle, nil)
	err := r.user.Get(r.ctx, key, obj)
	exists := err == nil && obj.GetDeletionTimestamp() == nil
	if err != nil && !apierrors.IsNotFound(err) {
		r.fail("get %s: %v", what, err)
	}
	switch {
	case in.Verb == "set" && !exists:
		obj = &unstructured.Unstructured{Object: map[string]any{"spec": in.Body["spec"]}}
		obj.SetGroupVersionKind(in.Owner.Kind)
		obj.SetNamespace(key.Namespace)
		obj.SetName(key.Name)
		setMeta(obj, in.Body)
		err = r.user.Create(r.ctx, obj)
	case in.Verb == "set":
		obj.Object["spec"] = in.Body["spec"]
		setMeta(obj, in.Body)
		err = r.user.Update(r.ctx, obj)
	case !exists:
		err = nil // already gone
	case in.Verb == "delete", in.Verb == "drift delete":
		err = client.IgnoreNotFound(r.user.Delete(r.ctx, obj))
	default:
		applyMergePatch(obj.Object, in.Body)
		err = r.user.Update(r.ctx, obj)
	}
	if err != nil {
		r.fail("%s %s: %v", in.Verb, what, err)
	}
	if in.Object == nil {
		r.host.IntentChanged(string(obj.GetUID())) // as a user's write in the run tells it
	}
	if in.Settle {
		r.quiesce()
	} else {
		r.sync()
	}
}

func setMeta(obj *unstructured.Unstructured, body map[string]any) {
	obj.SetLabels(stringMap(body["labels"]))
	obj.SetAnnotations(stringMap(body["annotations"]))
}

// stringMap reads labels as kept: a map[string]string, or the same
// through JSON.
func stringMap(v any) map[string]string {
	switch m := v.(type) {
	case map[string]string:
		return m
	case map[string]any:
		out := make(map[string]string, len(m))
		for k, e := range m {
			out[k] = fmt.Sprint(e)
		}
		return out
	}
	return nil
}
