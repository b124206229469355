package model

// The deployment controller: watches Deployments and ReplicaSets; a key is
// a Deployment's namespace/name. It creates the ReplicaSet for the current template and
// rolls replicas from old ReplicaSets to it within maxSurge and
// maxUnavailable, as upstream's rolloutRolling does, one phase per reconcile.
var deploymentRole = role{
	watches: kinds(KindDeployment, KindReplicaSet),
	keyKind: KindDeployment,
	keys: func(c *Memory, e WatchEvent) []string {
		switch o := e.Obj.(type) {
		case *Deployment:
			return []string{KeyOf(o)}
		case *ReplicaSet:
			if o.Owner.Kind == KindDeployment && o.Owner.UID != 0 {
				return []string{OwnerRef(&o.Meta).Key()}
			}
			if o.Owner.UID == 0 && e.Type != Deleted {
				return adopters(c, o)
			}
		}
		return nil
	},
	resync:    func(c *Memory, h Host) []string { return keys(c.List(KindDeployment)) },
	reconcile: reconcileDeployment,
}

// keys are the objects' keys.
func keys(os []Obj) []string {
	out := make([]string, len(os))
	for i, o := range os {
		out[i] = KeyOf(o)
	}
	return out
}

// ownedReplicaSets returns the view's ReplicaSets controlled by d, the one for
// d's current template (or nil) and the others, in name order.
func ownedReplicaSets(c *Memory, d *Deployment) (cur *ReplicaSet, old []*ReplicaSet) {
	hash := TemplateHash(d.Image, d.PodLabels, d.Template)
	for _, o := range c.List(KindReplicaSet) {
		rs := o.(*ReplicaSet)
		if rs.Owner.UID != d.UID || rs.Deleting {
			continue
		}
		if rs.Hash == hash {
			cur = rs
		} else {
			old = append(old, rs)
		}
	}
	return cur, old
}

func reconcileDeployment(c *Memory, h Host, t Writer, key string) {
	d, _ := c.Get(KindDeployment, key).(*Deployment)
	if d == nil || d.Deleting {
		return
	}
	// Expectations: act only on a view that includes our own last
	// ReplicaSet write, or a stale view could push the total over maxSurge.
	if c.Waiting(key) {
		return
	}
	if adoptReplicaSet(c, h, t, d) {
		return
	}
	surge, unavailable := ResolveSurge(d.Replicas, d.MaxSurge, d.MaxUnavailable)
	cur, old := ownedReplicaSets(c, d)
	total, maxOld := 0, 0
	for _, rs := range old {
		total += rs.Replicas
		maxOld = max(maxOld, rs.Revision)
	}
	rev := int64(0)
	revision := d.Revision // the newest ReplicaSet's, written with the status
	switch {
	case cur == nil:
		hash := TemplateHash(d.Image, d.PodLabels, d.Template)
		n := d.Replicas
		if total > 0 {
			n = max(0, min(d.Replicas, d.Replicas+surge-total))
		}
		rs := &ReplicaSet{
			Meta:         Meta{Name: ReplicaSetName(d.Name, hash), Namespace: d.Namespace, Labels: withHash(d.PodLabels, hash), Owner: Owner{Kind: KindDeployment, Name: d.Name, UID: d.UID}},
			Replicas:     n,
			Image:        d.Image,
			PodLabels:    withHash(d.PodLabels, hash),
			NodeSelector: d.NodeSelector,
			Template:     d.Template,
			Hash:         hash,
			Revision:     maxOld + 1,
		}
		rev = t.Create(rs)
		if rev != 0 {
			revision = rs.Revision
		}
	case cur.Revision <= maxOld:
		// A template seen before is back (kubectl rollout undo): its
		// ReplicaSet becomes the newest revision again, as upstream
		// renumbers it, before any scaling.
		next := cur.shallow().(*ReplicaSet)
		next.Revision = maxOld + 1
		rev = t.Update(VerbUpdate, cur, next)
		if rev != 0 {
			revision = next.Revision
		}
	case total == 0:
		// Not rolling: just scale.
		if cur.Replicas != d.Replicas {
			rev = t.Update(VerbUpdate, cur, scaled(cur, d.Replicas))
		}
	default:
		total += cur.Replicas
		if maxTotal := d.Replicas + surge; total < maxTotal && cur.Replicas < d.Replicas {
			up := min(maxTotal-total, d.Replicas-cur.Replicas)
			rev = t.Update(VerbUpdate, cur, scaled(cur, cur.Replicas+up))
			break
		}
		// Scale old ReplicaSets down while availability stays at least
		// replicas - maxUnavailable.
		// A scaled-down ReplicaSet's status lags its spec: count at most
		// spec.replicas as available.
		available := min(cur.Replicas, cur.Status.ReadyReplicas)
		for _, rs := range old {
			available += min(rs.Replicas, rs.Status.ReadyReplicas)
		}
		down := available - (d.Replicas - unavailable)
		// Old ReplicaSets whose pods are not available can always go.
		for _, rs := range old {
			if rs.Replicas == 0 {
				continue
			}
			unready := min(rs.Replicas, max(0, rs.Replicas-rs.Status.ReadyReplicas))
			ready := min(rs.Replicas-unready, max(0, down))
			if unready+ready == 0 {
				continue
			}
			if r := t.Update(VerbUpdate, rs, scaled(rs, rs.Replicas-unready-ready)); r != 0 {
				rev = r
			}
			down -= ready
		}
	}
	c.ExpectWrite(key, KindReplicaSet, rev)
	if t.Stopped() {
		return
	}
	// Status, from what the view shows.
	s := DeploymentStatus{}
	for _, rs := range append(old, cur) {
		if rs == nil {
			continue
		}
		s.Replicas += rs.Status.Replicas
		s.ReadyReplicas += rs.Status.ReadyReplicas
	}
	if cur != nil {
		s.UpdatedReplicas = cur.Status.Replicas
	}
	s.AvailableReplicas = s.ReadyReplicas
	if cur != nil && cur.Revision > maxOld {
		revision = cur.Revision
	}
	if s != d.Status || d.ObservedGeneration != d.Generation || revision != d.Revision {
		nd := d.shallow().(*Deployment)
		nd.Status, nd.ObservedGeneration, nd.Revision = s, d.Generation, revision
		t.Update(VerbStatus, d, nd)
	}
}

func scaled(rs *ReplicaSet, n int) *ReplicaSet {
	c := rs.shallow().(*ReplicaSet)
	c.Replicas = n
	return c
}

// PodTemplateHashLabel is the label that ties pods to one template.
const PodTemplateHashLabel = "pod-template-hash"

func withHash(labels map[string]string, hash string) map[string]string {
	out := make(map[string]string, len(labels)+1)
	for k, v := range labels {
		out[k] = v
	}
	out[PodTemplateHashLabel] = hash
	return out
}

// adopters are the Deployments whose selector matches an ownerless
// ReplicaSet (one an orphan delete left behind).
func adopters(c *Memory, rs *ReplicaSet) []string {
	var out []string
	for _, o := range c.List(KindDeployment) {
		if d := o.(*Deployment); !d.Deleting && d.Namespace == rs.Namespace && Matches(d.PodLabels, rs.Labels) {
			out = append(out, KeyOf(d))
		}
	}
	return out
}

// adoptReplicaSet makes d the owner of one ownerless ReplicaSet its
// selector matches, as upstream's controller ref manager claims orphans;
// otherwise a Deployment applied again after an orphan delete would try to
// create the ReplicaSet its template names, which exists, forever. Like
// upstream it first checks live that d is not being deleted. It reports
// whether it wrote (the ReplicaSet's event brings d back).
func adoptReplicaSet(c *Memory, h Host, t Writer, d *Deployment) bool {
	for _, o := range c.List(KindReplicaSet) {
		rs := o.(*ReplicaSet)
		if rs.Owner.UID != 0 || rs.Deleting || rs.Namespace != d.Namespace || !Matches(d.PodLabels, rs.Labels) {
			continue
		}
		if cur := h.Live(RefOf(d)); cur == nil || cur.meta().UID != d.UID || cur.meta().Deleting {
			return true
		}
		n := rs.shallow().(*ReplicaSet)
		n.Owner = Owner{Kind: KindDeployment, Name: d.Name, UID: d.UID}
		t.Update(VerbUpdate, rs, n)
		return true
	}
	return false
}
