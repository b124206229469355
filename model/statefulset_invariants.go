package model

import (
	"slices"
	"strconv"
)

// StatefulSet safety, upstream's guarantees for it
// (pkg/controller/statefulset and the StatefulSet concept page):
//   - OrderedReady starts pod n+1 only once pod n has been Running and
//     Ready ("before a scaling operation is applied to a Pod, all of its
//     predecessors must be Running and Ready"). The controller decides
//     from its view, a past state of the store, so the check is that some
//     incarnation of pod n of the same set was Running and Ready before;
//   - a pod of a set mounts the claims of its own ordinal;
//   - a claim is deleted by a component only through an ownerReference,
//     which the controller puts on it only when the retention policy says
//     Delete; the statefulset controller itself never deletes a claim.
//
// That two live pods never share an identity rests on names: a pod's
// name is its identity, the store holds one object per name, and the
// invariant that every running container belongs to the stored pod of
// its name and uid (invariants.go) catches a replacement started while
// the old incarnation's container still runs.

// learnStatefulPod records a set's pod that is Running and Ready.
func (c *Checker) learnStatefulPod(p *Pod) {
	if p.Owner.Kind == KindStatefulSet && p.Phase == PhaseRunning && p.Ready {
		if c.stsReady == nil {
			c.stsReady = map[string]bool{}
		}
		c.stsReady[statefulReadyKey(p.Namespace, p.Name, p.Owner.UID)] = true
	}
}

func statefulReadyKey(ns, pod string, set int64) string {
	return Key(ns, pod) + "#" + strconv.FormatInt(set, 10)
}

// checkStatefulWrite checks one write against the StatefulSet invariants.
func (c *Checker) checkStatefulWrite(s *Snapshot, w Write) error {
	if w.Err != nil || w.Local != "" {
		return nil
	}
	if p, _ := w.After.(*Pod); p != nil {
		if w.Verb == VerbCreate && p.Owner.Kind == KindStatefulSet {
			if err := c.checkOrderedCreate(s, p); err != nil {
				return err
			}
		}
		c.learnStatefulPod(p)
	}
	if w.Ref.Kind != KindPersistentVolumeClaim || w.Verb != VerbDelete || w.Before == nil {
		return nil
	}
	switch {
	case w.Actor == StatefulSetController:
		return violation("the statefulset controller never deletes a claim", "%s deleted %s", w.Actor, w.Ref)
	case w.Actor == "user" || w.Actor == NamespaceController:
		// The user asked: a claim's own delete, or its namespace's.
		return nil
	case w.Before.meta().Owner.UID == 0:
		return violation("a StatefulSet's claim goes only as its retention policy says", "%s deleted %s, which no ownerReference put up for deletion", w.Actor, w.Ref)
	}
	return nil
}

func (c *Checker) checkOrderedCreate(s *Snapshot, p *Pod) error {
	set, _ := s.Objects[OwnerRef(&p.Meta)].(*StatefulSet)
	if set == nil || set.UID != p.Owner.UID || set.Parallel {
		return nil // gone since (its pods are collected), or Parallel
	}
	n, ok := StatefulSetOrdinal(set.Name, p.Name)
	if !ok || n == 0 {
		return nil // a misnamed pod fails checkStatefulPods
	}
	prev := StatefulSetPodName(set.Name, n-1)
	if !c.stsReady[statefulReadyKey(p.Namespace, prev, set.UID)] {
		return violation("OrderedReady starts a pod only after its predecessor is Running and Ready", "%s created before %s was ever Running and Ready", KeyOf(p), prev)
	}
	return nil
}

// checkStatefulPods checks every pod of a live set: named for an ordinal,
// mounting that ordinal's claims.
func (c *Checker) checkStatefulPods(s *Snapshot) error {
	for _, o := range s.List(KindPod) {
		p := o.(*Pod)
		c.learnStatefulPod(p)
		if p.Owner.Kind != KindStatefulSet {
			continue
		}
		set, _ := s.Objects[OwnerRef(&p.Meta)].(*StatefulSet)
		if set == nil || set.UID != p.Owner.UID {
			continue
		}
		n, ok := StatefulSetOrdinal(set.Name, p.Name)
		if !ok {
			return violation("a StatefulSet's pods are named <set>-<ordinal>", "%s is owned by statefulsets/%s", KeyOf(p), set.Name)
		}
		if want := StatefulSetClaims(set, n); !slices.Equal(p.Claims, want) {
			return violation("a StatefulSet's pod mounts the claims of its own ordinal", "%s mounts %v, want %v", KeyOf(p), p.Claims, want)
		}
	}
	return nil
}
