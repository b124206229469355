package model

import (
	"slices"
	"strconv"
	"strings"
)

// The statefulset controller: watches StatefulSets, Pods and
// PersistentVolumeClaims; a key is a StatefulSet's namespace/name. As
// upstream's (pkg/controller/statefulset), each pod has a stable identity,
// "<set>-<ordinal>", and its own claims, "<template>-<set>-<ordinal>",
// made before it and kept when it goes unless the retention policy says
// Delete (which it says by an ownerReference the garbage collector
// follows: the set's for whenDeleted, the condemned pod's for
// whenScaled). OrderedReady creates pods one at a time in ordinal order,
// each once the one before is Running and Ready, and removes them one at a
// time from the highest; Parallel creates and removes them all at once. A
// changed template rolls out as RollingUpdate does: from the highest
// ordinal, one pod at a time, once every pod is Running and Ready.
//
// It keeps no expectations, as upstream keeps none: a pod's name is its
// identity, so a create its stale view repeats fails with AlreadyExists
// and is retried.
var statefulSetRole = role{
	watches: kinds(KindStatefulSet, KindPod, KindPersistentVolumeClaim),
	keyKind: KindStatefulSet,
	keys: func(c *Memory, e WatchEvent) []string {
		switch o := e.Obj.(type) {
		case *StatefulSet:
			return []string{KeyOf(o)}
		case *Pod:
			if o.Owner.Kind == KindStatefulSet && o.Owner.UID != 0 {
				return []string{OwnerRef(&o.Meta).Key()}
			}
		case *PersistentVolumeClaim:
			// A claim's set is named by the claim's name; every set of
			// the namespace whose claim it could be looks again.
			var out []string
			for _, s := range c.List(KindStatefulSet) {
				if _, ok := claimOrdinal(s.(*StatefulSet), o.Name); ok {
					out = append(out, KeyOf(s))
				}
			}
			return out
		}
		return nil
	},
	resync:    func(c *Memory, h Host) []string { return keys(c.List(KindStatefulSet)) },
	reconcile: reconcileStatefulSet,
}

// claimOrdinal reads the ordinal of a claim named for one of s's templates.
func claimOrdinal(s *StatefulSet, claim string) (int, bool) {
	for _, t := range s.ClaimTemplates {
		if rest, ok := strings.CutPrefix(claim, t+"-"); ok {
			if n, ok := StatefulSetOrdinal(s.Name, rest); ok {
				return n, true
			}
		}
	}
	return 0, false
}

// members splits the set's pods in the view into those whose ordinal is
// below spec.replicas (by ordinal; nil where none) and the condemned
// others, highest ordinal first.
func members(c *Memory, s *StatefulSet) (replicas []*Pod, condemned []*Pod) {
	replicas = make([]*Pod, s.Replicas)
	for p := range c.OwnedPods(s.UID) {
		n, ok := StatefulSetOrdinal(s.Name, p.Name)
		switch {
		case !ok:
		case n < s.Replicas:
			replicas[n] = p
		default:
			condemned = append(condemned, p)
		}
	}
	slices.SortFunc(condemned, func(a, b *Pod) int {
		x, _ := StatefulSetOrdinal(s.Name, a.Name)
		y, _ := StatefulSetOrdinal(s.Name, b.Name)
		return y - x
	})
	return replicas, condemned
}

func runningAndReady(p *Pod) bool { return p.Phase == PhaseRunning && p.Ready && !p.Deleting }

// statefulSync is one reconcile's progress: whether it wrote, and
// whether it must stop (a write failed, or OrderedReady waits).
type statefulSync struct {
	c     *Memory
	t     Writer
	s     *StatefulSet
	wrote bool
}

func reconcileStatefulSet(c *Memory, h Host, t Writer, key string) {
	s, _ := c.Get(KindStatefulSet, key).(*StatefulSet)
	if s == nil || s.Deleting {
		return
	}
	y := &statefulSync{c: c, t: t, s: s}
	replicas, condemned := members(c, s)
	if y.syncReplicas(replicas) && y.syncCondemned(replicas, condemned) {
		y.rollOut(replicas)
	}
	if !y.wrote && !t.Stopped() {
		y.writeStatus(replicas, condemned)
	}
}

// syncReplicas makes sure every ordinal below spec.replicas has its claims
// and its pod; it reports whether the sync may go on to the condemned.
// OrderedReady stops at the first ordinal that is not Running and Ready;
// Parallel goes through them all.
func (y *statefulSync) syncReplicas(replicas []*Pod) bool {
	for n, p := range replicas {
		switch {
		case p != nil && p.Deleting:
			// Its replacement waits until it is gone: two pods never
			// share an identity.
		case !y.ensureClaims(n, p):
			return false
		case p == nil:
			if !y.write(y.t.Create(y.newPod(n))) {
				return false
			}
		case runningAndReady(p):
			continue
		}
		if !y.s.Parallel {
			return false
		}
	}
	return true
}

// syncCondemned removes the pods at or above spec.replicas, highest
// first; it reports whether none is left.
func (y *statefulSync) syncCondemned(replicas, condemned []*Pod) bool {
	firstUnhealthy := ""
	for _, p := range replicas {
		if p != nil && !runningAndReady(p) && firstUnhealthy == "" {
			firstUnhealthy = p.Name
		}
	}
	for i := len(condemned) - 1; i >= 0 && firstUnhealthy == ""; i-- {
		if !runningAndReady(condemned[i]) {
			firstUnhealthy = condemned[i].Name
		}
	}
	for _, p := range condemned {
		if p.Deleting {
			if !y.s.Parallel {
				return false
			}
			continue
		}
		if !y.s.Parallel && !runningAndReady(p) && p.Name != firstUnhealthy {
			return false
		}
		n, _ := StatefulSetOrdinal(y.s.Name, p.Name)
		if !y.ownClaims(n, p, true) || !y.write(y.t.Delete(p)) {
			return false
		}
		if !y.s.Parallel {
			return false
		}
	}
	return len(condemned) == 0
}

// rollOut replaces one pod not at the update revision, from the highest
// ordinal, once every pod is Running and Ready (RollingUpdate, partition
// 0, maxUnavailable 1).
func (y *statefulSync) rollOut(replicas []*Pod) {
	for _, p := range replicas {
		if p == nil || !runningAndReady(p) {
			return
		}
	}
	rev := StatefulSetRevision(y.s)
	for n := len(replicas) - 1; n >= 0; n-- {
		if p := replicas[n]; p.Labels[LabelRevisionHash] != rev {
			y.write(y.t.Delete(p))
			return
		}
	}
}

// write records a write's outcome; false once the reconcile must stop.
func (y *statefulSync) write(rev int64) bool {
	if rev == 0 {
		return false
	}
	y.wrote = true
	return !y.t.Stopped()
}

// ensureClaims creates the missing claims of ordinal n and sets the
// ownership the retention policy asks of the present ones; pod is the
// ordinal's pod (nil before it is made).
func (y *statefulSync) ensureClaims(n int, pod *Pod) bool {
	for _, name := range StatefulSetClaims(y.s, n) {
		if y.c.Get(KindPersistentVolumeClaim, Key(y.s.Namespace, name)) != nil {
			continue
		}
		claim := &PersistentVolumeClaim{Meta: Meta{Name: name, Namespace: y.s.Namespace, Labels: y.s.PodLabels, Owner: y.claimOwner(nil, false)}}
		if !y.write(y.t.Create(claim)) {
			return false
		}
	}
	return y.ownClaims(n, pod, false)
}

// claimOwner is the ownerReference the retention policy asks of a claim:
// the condemned pod's for whenScaled Delete, the set's for whenDeleted
// Delete, none for Retain.
func (y *statefulSync) claimOwner(pod *Pod, condemned bool) Owner {
	switch {
	case condemned && y.s.DeleteClaimsWhenScaled && pod != nil:
		return Owner{Kind: KindPod, Name: pod.Name, UID: pod.UID}
	case y.s.DeleteClaimsWhenDeleted:
		return Owner{Kind: KindStatefulSet, Name: y.s.Name, UID: y.s.UID}
	}
	return Owner{}
}

// ownClaims updates the owner of ordinal n's claims to what the policy
// asks. It takes over only claims with no owner or one of the set's own
// (the set or one of its pods): a claim someone else owns is left alone.
func (y *statefulSync) ownClaims(n int, pod *Pod, condemned bool) bool {
	want := y.claimOwner(pod, condemned)
	for _, name := range StatefulSetClaims(y.s, n) {
		cl, _ := y.c.Get(KindPersistentVolumeClaim, Key(y.s.Namespace, name)).(*PersistentVolumeClaim)
		if cl == nil || cl.Deleting || cl.Owner == want || !y.ours(cl.Owner) {
			continue
		}
		next := cl.shallow().(*PersistentVolumeClaim)
		next.Owner = want
		if !y.write(y.t.Update(VerbUpdate, cl, next)) {
			return false
		}
	}
	return true
}

// ours: no owner, the set, or a pod named for the set.
func (y *statefulSync) ours(o Owner) bool {
	switch {
	case o.UID == 0:
		return true
	case o.Kind == KindStatefulSet:
		return o.UID == y.s.UID
	case o.Kind == KindPod:
		_, ok := StatefulSetOrdinal(y.s.Name, o.Name)
		return ok
	}
	return false
}

// newPod is the set's pod number n, at the update revision.
func (y *statefulSync) newPod(n int) *Pod {
	s := y.s
	name := StatefulSetPodName(s.Name, n)
	labels := make(map[string]string, len(s.PodLabels)+3)
	for k, v := range s.PodLabels {
		labels[k] = v
	}
	labels[LabelStatefulSetPodName] = name
	labels[LabelPodIndex] = strconv.Itoa(n)
	labels[LabelRevisionHash] = StatefulSetRevision(s)
	return &Pod{
		Meta:         Meta{Name: name, Namespace: s.Namespace, Labels: labels, Owner: Owner{Kind: KindStatefulSet, Name: s.Name, UID: s.UID}},
		Image:        s.Image,
		NodeSelector: s.NodeSelector,
		CPU:          DefaultPodCPU,
		Memory:       DefaultPodMemory,
		Phase:        PhasePending,
		Claims:       StatefulSetClaims(s, n),
	}
}

// writeStatus writes the status the view shows, when it changed.
func (y *statefulSync) writeStatus(replicas, condemned []*Pod) {
	s := y.s
	st := StatefulSetStatus{ObservedGeneration: s.Generation, UpdateRevision: StatefulSetRevision(s), CurrentRevision: s.Status.CurrentRevision}
	if st.CurrentRevision == "" {
		st.CurrentRevision = st.UpdateRevision
	}
	for _, p := range append(slices.Clone(replicas), condemned...) {
		if p == nil || p.Deleting {
			continue
		}
		st.Replicas++
		if runningAndReady(p) {
			st.ReadyReplicas++
			st.AvailableReplicas++ // minReadySeconds 0
		}
		switch p.Labels[LabelRevisionHash] {
		case st.UpdateRevision:
			st.UpdatedReplicas++
		case st.CurrentRevision:
			st.CurrentReplicas++
		}
	}
	if st.UpdatedReplicas == s.Replicas && st.Replicas == s.Replicas {
		// The rollout is complete: the update revision is current.
		st.CurrentRevision, st.CurrentReplicas = st.UpdateRevision, st.UpdatedReplicas
	} else if st.CurrentRevision == st.UpdateRevision {
		st.CurrentReplicas = st.UpdatedReplicas
	}
	if st == s.Status {
		return
	}
	n := s.shallow().(*StatefulSet)
	n.Status = st
	y.t.Update(VerbStatus, s, n)
}
