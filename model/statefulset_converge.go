package model

import "slices"

// statefulSetsConverged: every live StatefulSet has its pods
// <set>-0..<set>-(replicas-1), at its update revision and mounting their
// own claims, which exist, and a status that says so (replicas, ready,
// current, updated and available all spec.replicas, current revision the
// update revision, at its generation). A set whose image does not pull
// is left to the pods' own check, which excuses pods honestly waiting.
func statefulSetsConverged(s *Snapshot, failing func(image string) bool) error {
	for _, o := range s.List(KindStatefulSet) {
		set := o.(*StatefulSet)
		if set.Deleting || failing(set.Image) {
			continue
		}
		rev := StatefulSetRevision(set)
		pods := 0
		for _, po := range s.List(KindPod) {
			if p := po.(*Pod); p.Owner.UID == set.UID && !p.Deleting {
				pods++
			}
		}
		if pods != set.Replicas {
			return notConverged("statefulset %s has %d pods, want %d", set.Name, pods, set.Replicas)
		}
		for n := range set.Replicas {
			name := StatefulSetPodName(set.Name, n)
			p, _ := s.Objects[RefTo(KindPod, Key(set.Namespace, name))].(*Pod)
			if p == nil || p.Owner.UID != set.UID || p.Labels[LabelRevisionHash] != rev || !slices.Equal(p.Claims, StatefulSetClaims(set, n)) {
				return notConverged("statefulset %s has no pod %s at revision %s", set.Name, name, rev)
			}
			for _, cl := range p.Claims {
				if s.Objects[RefTo(KindPersistentVolumeClaim, Key(set.Namespace, cl))] == nil {
					return notConverged("pod %s's claim %s is missing", name, cl)
				}
			}
		}
		r := set.Replicas
		want := StatefulSetStatus{ObservedGeneration: set.Generation, Replicas: r, ReadyReplicas: r, CurrentReplicas: r, UpdatedReplicas: r, AvailableReplicas: r, CurrentRevision: rev, UpdateRevision: rev}
		if set.Status != want {
			return notConverged("statefulset %s status %+v, want %+v", set.Name, set.Status, want)
		}
	}
	return nil
}
