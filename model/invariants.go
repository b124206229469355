package model

import (
	"errors"
	"fmt"
)

// ErrViolation wraps every safety violation the Checker reports.
var ErrViolation = errors.New("model: invariant violated")

// Checker checks the safety invariants after every step, on a Snapshot and
// the step's writes. It keeps the little history some invariants need, so
// one Checker follows one run. The same checker runs on the model and on the
// projected implementation.
type Checker struct {
	everReady map[string]bool // pod names that have been ready (a reused name keeps its record)
	rsMax     map[int64]int   // ReplicaSet UID -> highest spec.replicas it has had
	surgeMax  map[int64]int   // Deployment UID -> highest replicas+maxSurge it has had
	lastRev   int64
	prev      map[Ref]Obj // the last snapshot's objects (ownership.go)
	// adopted are the Deployments that adopted an orphaned ReplicaSet: its
	// replicas came with it, not from their rollout.
	adopted map[int64]bool
	// stsReady: "<namespace>/<pod>#<set uid>" of the StatefulSets' pods
	// that have been Running and Ready (statefulset_invariants.go).
	stsReady map[string]bool
}

// NewChecker starts a checker for one run.
func NewChecker() *Checker {
	return &Checker{everReady: map[string]bool{}, rsMax: map[int64]int{}, surgeMax: map[int64]int{}, adopted: map[int64]bool{}}
}

func violation(name, format string, args ...any) error {
	return fmt.Errorf("%w: %s: %s", ErrViolation, name, fmt.Sprintf(format, args...))
}

// Check returns the first violated invariant, or nil.
func (c *Checker) Check(s *Snapshot, writes []Write) error {
	stored := storedBefore{prev: c.prev, step: map[Ref]Obj{}} // see ownership.go
	c.prev = s.Objects
	for _, w := range writes {
		if err := c.checkWrite(s, w); err != nil {
			return err
		}
		if err := checkDeletion(stored, s, w); err != nil {
			return err
		}
		if err := c.checkStatefulWrite(s, w); err != nil {
			return err
		}
		if err := specOwner(stored, w); err != nil && w.Err == nil && w.Local == "" {
			return err
		}
	}
	c.learn(s)
	if err := c.checkStatefulPods(s); err != nil {
		return err
	}
	return c.checkState(s)
}

func (c *Checker) checkWrite(s *Snapshot, w Write) error {
	if w.Err != nil || w.Local != "" {
		return nil
	}
	if w.Rev <= c.lastRev {
		return violation("revisions never go backwards", "%s at rev %d after rev %d", w, w.Rev, c.lastRev)
	}
	c.lastRev = w.Rev
	if p, _ := w.After.(*Pod); p != nil {
		before, _ := w.Before.(*Pod)
		if before != nil && before.UID != p.UID {
			before = nil // a name reused after the old object went (as StatefulSets do)
		}
		if before != nil && before.NodeName != "" && before.NodeName != p.NodeName {
			return violation("a pod is bound at most once", "%s moved from %s to %s by %s", w.Ref, before.NodeName, p.NodeName, w.Actor)
		}
		if p.NodeName != "" && (before == nil || before.NodeName == "") {
			n, _ := s.Objects[Ref{Kind: KindNode, Name: p.NodeName}].(*Node)
			if n == nil || !n.Ready {
				return violation("pods bind only to Ready nodes", "%s bound to %s", w.Ref, p.NodeName)
			}
		}
		if p.Ready {
			c.everReady[KeyOf(p)] = true
		}
	}
	if w.Actor == GarbageCollector && w.Verb == VerbDelete && w.Before != nil {
		if bm := w.Before.meta(); bm.Owner.UID != 0 {
			cur := s.Objects[OwnerRef(bm)]
			if cur != nil && cur.meta().UID == bm.Owner.UID && !(cur.meta().Deleting && cur.meta().HasFinalizer(FinalizerForeground)) {
				return violation("the garbage collector deletes only orphans and a foreground deletion's dependents", "%s deleted while its owner %s exists", w.Ref, OwnerRef(bm))
			}
		}
	}
	if rs, _ := w.After.(*ReplicaSet); rs != nil {
		c.rsMax[rs.UID] = max(c.rsMax[rs.UID], rs.Replicas)
		if before, _ := w.Before.(*ReplicaSet); before != nil && before.Owner.UID == 0 && rs.Owner.UID != 0 {
			c.adopted[rs.Owner.UID] = true
		}
	}
	if d, _ := w.After.(*Deployment); d != nil {
		c.learnDeployment(d)
	}
	return nil
}

func (c *Checker) learnDeployment(d *Deployment) {
	surge, _ := ResolveSurge(d.Replicas, d.MaxSurge, d.MaxUnavailable)
	c.surgeMax[d.UID] = max(c.surgeMax[d.UID], d.Replicas+surge)
}

func (c *Checker) learn(s *Snapshot) {
	for _, o := range s.Objects {
		switch x := o.(type) {
		case *Pod:
			if x.Ready {
				c.everReady[KeyOf(x)] = true
			}
		case *ReplicaSet:
			c.rsMax[x.UID] = max(c.rsMax[x.UID], x.Replicas)
		case *Deployment:
			c.learnDeployment(x)
		}
	}
}

func (c *Checker) checkState(s *Snapshot) error {
	active := map[int64]int{}  // RS UID -> non-terminating pods
	specSum := map[int64]int{} // Deployment UID -> sum of its ReplicaSets' spec.replicas
	lists := s.lists(KindPod, KindReplicaSet, KindDeployment, KindEndpoints, KindEndpointSlice)
	for _, o := range lists[KindPod] {
		if p := o.(*Pod); !p.Deleting && p.Owner.Kind == KindReplicaSet {
			active[p.Owner.UID]++
		}
	}
	for _, o := range lists[KindReplicaSet] {
		rs := o.(*ReplicaSet)
		if n := active[rs.UID]; n > c.rsMax[rs.UID] {
			return violation("a ReplicaSet never has more pods than it asked for", "%s has %d non-terminating pods, spec.replicas never above %d", rs.Name, n, c.rsMax[rs.UID])
		}
		if rs.Owner.Kind == KindDeployment && !rs.Deleting {
			specSum[rs.Owner.UID] += rs.Replicas
		}
	}
	for _, o := range lists[KindDeployment] {
		d := o.(*Deployment)
		if n := specSum[d.UID]; n > c.surgeMax[d.UID] && !c.adopted[d.UID] {
			return violation("a rollout stays within replicas+maxSurge", "%s's ReplicaSets ask for %d pods, replicas+maxSurge never above %d", d.Name, n, c.surgeMax[d.UID])
		}
	}
	for _, o := range lists[KindEndpoints] {
		for _, a := range o.(*Endpoints).Addresses {
			if !c.everReady[Key(o.meta().Namespace, a.Pod)] {
				return violation("endpoints name only pods that were ready", "endpoints/%s lists %s, never ready", KeyOf(o), a.Pod)
			}
		}
	}
	for _, o := range lists[KindEndpointSlice] {
		for _, e := range o.(*EndpointSlice).Endpoints {
			if (e.Ready || e.Serving) && !c.everReady[Key(o.meta().Namespace, e.Pod)] {
				return violation("endpoint slices call ready only pods that were ready", "endpointslices/%s has %s ready or serving, never ready", KeyOf(o), e.Pod)
			}
		}
	}
	ips := map[string]string{} // node/IP -> pod
	for _, o := range lists[KindPod] {
		if p := o.(*Pod); p.NodeName != "" && p.PodIP != "" {
			key := p.NodeName + "/" + p.PodIP
			if other, dup := ips[key]; dup {
				return violation("pods on a node have distinct addresses", "%s and %s both have %s on %s", other, KeyOf(p), p.PodIP, p.NodeName)
			}
			ips[key] = KeyOf(p)
		}
	}
	running := map[int64]string{}
	for _, ctr := range s.Containers {
		if !ctr.Running {
			continue
		}
		p, _ := s.Objects[RefTo(KindPod, ctr.Pod)].(*Pod)
		if p == nil || p.UID != ctr.PodUID || p.NodeName != ctr.Node {
			return violation("a kubelet runs containers only for pods bound to its node", "container %s runs on %s", ctr.ID, ctr.Node)
		}
		if other, dup := running[ctr.PodUID]; dup {
			return violation("no pod has two running containers", "%s and %s", other, ctr.ID)
		}
		running[ctr.PodUID] = ctr.ID
	}
	return nil
}
