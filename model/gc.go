package model

import "strings"

// The garbage collector: watches Deployments, ReplicaSets, Pods, Services,
// StatefulSets, PersistentVolumeClaims and custom resources, which may own
// any of them (an implementation's
// custom view holds the built-in kinds the model lacks too, as Kubernetes'
// collector watches every resource); a key is
// "<resource>/<namespace>/<name>" ("<type>/<namespace>/<name>" for a custom
// resource) of an object it has work for:
//   - a dependent whose controller owner is gone (no object with that name
//     and UID) is deleted in the background. Before deleting it checks the
//     owner with a live read, because a stale view may simply not show a
//     new owner yet;
//   - an owner being deleted with the "orphan" finalizer has its
//     dependents' ownerReferences removed, then the finalizer;
//   - an owner being deleted with the "foregroundDeletion" finalizer has
//     its dependents deleted (in the foreground themselves when they have
//     dependents), and the finalizer goes once none is left.
//
// The last two list the dependents live: a dependent its view does not
// show yet (a stale controller may still create one) must not outlive the
// owner's finalizer.
var gcRole = role{
	watches: kinds(collected...),
	refKeys: true,
	keys: func(c *Memory, e WatchEvent) []string {
		var out []string
		m := e.Obj.meta()
		if follows(m) && e.Type != Deleted && !ownerInView(c, m) {
			out = append(out, RefOf(e.Obj).String())
		}
		if e.Type != Deleted && gcFinalizing(m) {
			out = append(out, RefOf(e.Obj).String())
		}
		// A dependent of a foreground deletion changed: its owner may be
		// free to go.
		if ow := c.GetRef(OwnerRef(m)); m.Owner.UID != 0 && ow != nil && ow.meta().UID == m.Owner.UID && gcFinalizing(ow.meta()) {
			out = append(out, RefOf(ow).String())
		}
		if e.Type == Deleted {
			for _, o := range dependentsInView(c, m.UID) {
				out = append(out, RefOf(o).String())
			}
			if e.Obj.Kind() == KindCustom {
				// Its dependents of kinds no view holds are looked up live.
				out = append(out, RefOf(e.Obj).String())
			}
		}
		return out
	},
	resync: func(c *Memory, h Host) []string {
		var out []string
		for _, k := range collected {
			for _, o := range c.List(k) {
				m := o.meta()
				if (follows(m) && !ownerInView(c, m)) || gcFinalizing(m) {
					out = append(out, RefOf(o).String())
				}
			}
		}
		return append(out, goneCustomOwners(c, h)...)
	},
	reconcile: reconcileGC,
}

// goneCustomOwners are the custom resources, gone from the view, that
// control live objects the view does not hold: a collector that was down
// when they went heard no event of theirs, and its relist shows only what
// is left. Each is keyed, to collect its dependents live.
func goneCustomOwners(c *Memory, h Host) []string {
	objs, err := h.LiveList(KindCustom)
	if err != nil {
		return nil // the view's own keys still go; a later relist looks again
	}
	var out []string
	seen := map[Ref]bool{}
	for _, d := range objs {
		m := d.meta()
		owner := OwnerRef(m)
		if m.Deleting || !follows(m) || owner.Kind != KindCustom || seen[owner] || ownerInView(c, m) || c.GetRef(RefOf(d)) != nil {
			continue
		}
		seen[owner] = true
		out = append(out, owner.String())
	}
	return out
}

// collected are the kinds whose owners the collector follows through its
// view.
var collected = []Kind{KindDeployment, KindReplicaSet, KindPod, KindService, KindCustom, KindStatefulSet, KindPersistentVolumeClaim}

// follows: the object has a controller.
func follows(m *Meta) bool { return m.Owner.UID != 0 }

// gcFinalizing: being deleted, and a garbage collector's finalizer is left.
func gcFinalizing(m *Meta) bool {
	return m.Deleting && (m.HasFinalizer(FinalizerOrphan) || m.HasFinalizer(FinalizerForeground))
}

// ownerInView: the view shows the owner of the object with metadata m.
func ownerInView(c *Memory, m *Meta) bool {
	cur := c.GetRef(OwnerRef(m))
	return cur != nil && cur.meta().UID == m.Owner.UID
}

// dependentsInView are the viewed objects whose controller has uid.
func dependentsInView(c *Memory, uid int64) []Obj {
	var out []Obj
	for _, k := range collected {
		for _, o := range c.List(k) {
			if o.meta().Owner.UID == uid {
				out = append(out, o)
			}
		}
	}
	return out
}

// ParseRef reads "<resource>/<namespace>/<name>" ("<resource>/<name>" for
// a cluster-scoped kind, or for the default namespace), or a custom
// resource's Ref.String ("<type>/<namespace>/<name>", or "<type>/<name>"
// when cluster-scoped), whose type holds a dot or, for a built-in kind the
// model lacks, names no kind of the model ("configmaps").
func ParseRef(s string) (Ref, bool) {
	res, key, ok := strings.Cut(s, "/")
	k, known := KindOf(res)
	if ok && res != "" && (strings.Contains(res, ".") || !known) {
		ns, name := SplitKey(key)
		return Ref{Kind: KindCustom, Type: res, Namespace: ns, Name: name}, name != "" && !strings.Contains(name, "/")
	}
	if !ok || !known || k == KindCustom {
		return Ref{}, false
	}
	r := RefTo(k, key)
	return r, r.Name != "" && !strings.Contains(r.Name, "/") && (r.Namespace != "" || !k.Namespaced())
}

func reconcileGC(c *Memory, h Host, t Writer, key string) {
	r, ok := ParseRef(key)
	if !ok {
		return
	}
	o := c.GetRef(r)
	if o == nil {
		if r.Kind == KindCustom {
			collectLiveDependents(c, h, t, r)
		}
		return
	}
	if gcFinalizing(o.meta()) {
		finishDeletion(h, t, o)
		return
	}
	if o.meta().Deleting || !follows(o.meta()) {
		return
	}
	if ownerInView(c, o.meta()) {
		return
	}
	if cur := h.Live(OwnerRef(o.meta())); cur != nil && cur.meta().UID == o.meta().Owner.UID {
		return
	}
	t.Delete(o)
}

// collectLiveDependents deletes the live objects that the custom resource
// r, which went, controlled and that the view does not hold (ones not
// delivered yet, or, after a relist, ones whose events came while the
// collector was down), without waiting for their own events.
func collectLiveDependents(c *Memory, h Host, t Writer, r Ref) {
	objs, err := h.LiveList(KindCustom)
	if err != nil {
		t.Retry()
		return
	}
	for _, d := range objs {
		m := d.meta()
		if m.Deleting || !follows(m) || OwnerRef(m) != r || c.GetRef(RefOf(d)) != nil {
			continue
		}
		if cur := h.Live(r); cur != nil && cur.meta().UID == m.Owner.UID {
			return // it is back: not gone after all
		}
		if t.Delete(d); t.Stopped() {
			return
		}
	}
}

// finishDeletion does the work an owner's orphan or foregroundDeletion
// finalizer asks for, on the live owner and its live dependents.
func finishDeletion(h Host, t Writer, seen Obj) {
	owner := h.Live(RefOf(seen))
	if owner == nil || owner.meta().UID != seen.meta().UID || !gcFinalizing(owner.meta()) {
		return
	}
	byOwner, ok := liveDependents(h)
	if !ok {
		return
	}
	om := owner.meta()
	deps := byOwner[om.UID]
	if om.HasFinalizer(FinalizerOrphan) {
		for _, d := range deps {
			n := d.shallow()
			n.meta().Owner = Owner{}
			if t.Update(VerbUpdate, d, n); t.Stopped() {
				return
			}
		}
		dropFinalizer(t, owner, FinalizerOrphan)
		return
	}
	for _, d := range deps {
		if d.meta().Deleting {
			continue // on its way: wait for it to go
		}
		p := PropagateDefault
		if len(byOwner[d.meta().UID]) > 0 {
			p = PropagateForeground
		}
		if t.DeleteWith(d, p); t.Stopped() {
			return
		}
	}
	if len(deps) == 0 {
		dropFinalizer(t, owner, FinalizerForeground)
	}
}

// liveDependents lists the live objects by their controller's UID.
func liveDependents(h Host) (map[int64][]Obj, bool) {
	out := map[int64][]Obj{}
	for _, k := range collected {
		objs, err := h.LiveList(k)
		if err != nil {
			return nil, false
		}
		for _, o := range objs {
			if uid := o.meta().Owner.UID; uid != 0 {
				out[uid] = append(out[uid], o)
			}
		}
	}
	return out, true
}

func dropFinalizer(t Writer, o Obj, f string) {
	n := o.shallow()
	n.meta().Finalizers = withoutFinalizer(o.meta().Finalizers, f)
	t.Update(VerbUpdate, o, n)
}
