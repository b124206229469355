package model

import "sort"

// The replicaset controller: watches ReplicaSets and Pods; a key is a
// ReplicaSet's namespace/name. It creates or deletes pods until the ReplicaSet's
// non-terminating pods number spec.replicas. Expectations make it wait for
// its own writes to show in its view before it counts again; without them a
// stale cache makes it create pods twice.
var replicaSetRole = role{
	watches: kinds(KindReplicaSet, KindPod),
	keyKind: KindReplicaSet,
	keys: func(c *Memory, e WatchEvent) []string {
		switch o := e.Obj.(type) {
		case *ReplicaSet:
			return []string{KeyOf(o)}
		case *Pod:
			if o.Owner.Kind == KindReplicaSet && o.Owner.UID != 0 {
				return []string{OwnerRef(&o.Meta).Key()}
			}
		}
		return nil
	},
	resync:    func(c *Memory, h Host) []string { return keys(c.List(KindReplicaSet)) },
	reconcile: reconcileReplicaSet,
}

// activePods returns the view's non-terminating pods controlled by rs
// whose labels it selects, in no set order (what it decides from them does
// not depend on it), and the others it controls that it no longer selects
// (a user relabelled them), in name order.
func activePods(c *Memory, rs *ReplicaSet) (active, strays []*Pod) {
	for p := range c.OwnedPods(rs.UID) {
		switch {
		case p.Deleting:
		case Matches(rs.PodLabels, p.Labels):
			active = append(active, p)
		default:
			strays = append(strays, p)
		}
	}
	sort.Slice(strays, func(i, j int) bool { return strays[i].Name < strays[j].Name })
	return active, strays
}

func reconcileReplicaSet(c *Memory, h Host, t Writer, key string) {
	rs, _ := c.Get(KindReplicaSet, key).(*ReplicaSet)
	if rs == nil || rs.Deleting {
		return
	}
	if c.Waiting(key) {
		return
	}
	// Most syncs create, delete and free nothing: counting its pods is
	// enough, where listing them made a sync cost every pod of the set.
	selected, ready, strays := c.OwnedTally(rs.UID, rs.PodLabels)
	rev := int64(0)
	if strays > 0 {
		// A pod it no longer selects goes free, as upstream's claimPods
		// releases it: kubectl label pod X app=debug takes a pod out of
		// the set (and out of its Services), and a new one takes its place.
		_, unselected := activePods(c, rs)
		for _, p := range unselected {
			free := p.shallow().(*Pod)
			free.Owner = Owner{}
			if r := t.Update(VerbUpdate, p, free); r != 0 {
				rev = r
			}
		}
	}
	diff := rs.Replicas - selected
	switch {
	case diff > 0:
		batch := make([]Obj, diff)
		for i := range batch {
			batch[i] = &Pod{
				Meta:         Meta{Namespace: rs.Namespace, Labels: rs.PodLabels, Owner: Owner{Kind: KindReplicaSet, Name: rs.Name, UID: rs.UID}},
				Image:        rs.Image,
				NodeSelector: rs.NodeSelector,
				CPU:          DefaultPodCPU,
				Memory:       DefaultPodMemory,
				Phase:        PhasePending,
			}
		}
		if r := t.CreateGeneratedAll(rs.Name+"-", batch); r != 0 {
			rev = r
		}
	case diff < 0:
		pods, _ := activePods(c, rs)
		for _, p := range deletionOrder(pods)[:-diff] {
			if r := t.Delete(p); r != 0 {
				rev = r
			}
		}
	default:
		s := ReplicaSetStatus{Replicas: selected, ReadyReplicas: ready}
		if s != rs.Status {
			n := rs.shallow().(*ReplicaSet)
			n.Status = s
			t.Update(VerbStatus, rs, n)
		}
	}
	c.ExpectWrite(key, KindPod, rev)
}

// deletionOrder ranks pods for scale-down as upstream does, simplified:
// unscheduled first, then not ready, then the newest name.
func deletionOrder(pods []*Pod) []*Pod {
	out := append([]*Pod(nil), pods...)
	rank := func(p *Pod) int {
		switch {
		case p.NodeName == "":
			return 0
		case !p.Ready:
			return 1
		}
		return 2
	}
	sort.SliceStable(out, func(i, j int) bool {
		if ri, rj := rank(out[i]), rank(out[j]); ri != rj {
			return ri < rj
		}
		return nameNewer(out[i].Name, out[j].Name)
	})
	return out
}

// nameNewer orders generated names newest first: longer counters are newer.
func nameNewer(a, b string) bool {
	if len(a) != len(b) {
		return len(a) > len(b)
	}
	return a > b
}
