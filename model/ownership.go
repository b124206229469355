package model

import "maps"

// A ReplicaSet's spec belongs to its Deployment's controller (and to the
// user, through the Deployment); the replicaset controller writes only its
// status, as upstream's does. A write of the replicaset controller that
// changes the spec is a lost update: a retry that re-sends a stale copy,
// forced past the resourceVersion check, reverts what the deployment
// controller wrote since (issue 22's class 2). The check compares each
// write with the object as it was stored before it: the snapshot before
// the step, then the step's earlier writes.

// specOwner checks w against the stored state before it and records its
// result; stored is the state before the step, overlaid with the step's
// writes so far.
func specOwner(stored storedBefore, w Write) error {
	after, ok := w.After.(*ReplicaSet)
	old, _ := stored.get(w.Ref).(*ReplicaSet)
	if ok {
		stored.step[w.Ref] = after
	}
	if !ok || w.Actor != ReplicaSetController || old == nil || old.UID != after.UID {
		return nil
	}
	if old.Replicas != after.Replicas || old.Image != after.Image || old.Template != after.Template ||
		!maps.Equal(old.PodLabels, after.PodLabels) || !maps.Equal(old.NodeSelector, after.NodeSelector) {
		return violation("only the deployment controller changes a ReplicaSet's spec",
			"%s rewrote replicasets/%s's spec (replicas %d -> %d, image %s -> %s): a lost update", w.Actor, after.Name, old.Replicas, after.Replicas, old.Image, after.Image)
	}
	return nil
}

// storedBefore is the state before the step (the last snapshot's
// objects) overlaid with the step's writes so far.
type storedBefore struct {
	prev, step map[Ref]Obj
}

func (s storedBefore) get(r Ref) Obj {
	if o, ok := s.step[r]; ok {
		return o
	}
	return s.prev[r]
}
