package model

import "strings"

// The garbage collector: watches Deployments, ReplicaSets and Pods; a key is
// "<resource>/<name>" of a dependent. A dependent whose controller owner is
// gone (no object with that name and UID) is deleted in the background.
// Before deleting it checks the owner with a live read, because a stale
// view may simply not show a new owner yet.
var gcRole = role{
	watches: kinds(KindDeployment, KindReplicaSet, KindPod),
	keys: func(c *Memory, e WatchEvent) []string {
		var out []string
		if m := e.Obj.meta(); m.Owner.UID != 0 && e.Type != Deleted && !ownerInView(c, m.Owner) {
			out = append(out, RefOf(e.Obj).String())
		}
		if e.Type == Deleted {
			uid := e.Obj.meta().UID
			for _, k := range []Kind{KindReplicaSet, KindPod} {
				for _, o := range c.List(k) {
					if o.meta().Owner.UID == uid {
						out = append(out, RefOf(o).String())
					}
				}
			}
		}
		return out
	},
	resync: func(c *Memory, h Host) []string {
		var out []string
		for _, k := range []Kind{KindReplicaSet, KindPod} {
			for _, o := range c.List(k) {
				if ow := o.meta().Owner; ow.UID != 0 && !ownerInView(c, ow) {
					out = append(out, RefOf(o).String())
				}
			}
		}
		return out
	},
	reconcile: reconcileGC,
}

func ownerInView(c *Memory, ow Owner) bool {
	cur := c.Get(ow.Kind, ow.Name)
	return cur != nil && cur.meta().UID == ow.UID
}

// ParseRef reads "<resource>/<name>".
func ParseRef(s string) (Ref, bool) {
	res, name, ok := strings.Cut(s, "/")
	k, known := KindOf(res)
	return Ref{k, name}, ok && known && name != ""
}

func reconcileGC(c *Memory, h Host, t Writer, key string) {
	r, ok := ParseRef(key)
	if !ok {
		return
	}
	o := c.Get(r.Kind, r.Name)
	if o == nil || o.meta().Deleting || o.meta().Owner.UID == 0 {
		return
	}
	ow := o.meta().Owner
	ownerRef := Ref{ow.Kind, ow.Name}
	if ownerInView(c, ow) {
		return
	}
	if cur := h.Live(ownerRef); cur != nil && cur.meta().UID == ow.UID {
		return
	}
	t.Delete(o)
}
