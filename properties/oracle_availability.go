package properties

import "github.com/converge-dev/converge/model"

// Availability is the rollout availability oracle: a reconcile of the
// deployment controller that sees the whole store (it is caught up) keeps
// every Deployment at replicas − maxUnavailable available pods or more,
// or, when it was already below, loses none. Pods are counted as upstream's
// rollout counts them: from the ReplicaSets' status, at most spec.replicas
// each, over the Deployment's non-terminating ReplicaSets. A rollout that
// ignores maxUnavailable scales the old ReplicaSets down before the new
// pods are ready, and Converged never sees it: the end state is the same.
type Availability struct {
	before map[int64]avail // Deployment UID -> before the step; nil if not checked
}

type avail struct {
	name     string
	have     int
	min      int
	replicas int
}

// Before notes the availability before a, if a is a reconcile of the
// deployment controller on a view that includes every event.
func (v *Availability) Before(o Observed, s *model.Snapshot, a model.Action) {
	v.before = nil
	if a.Op != model.OpReconcile || a.Who != model.DeploymentController {
		return
	}
	for _, x := range o.EnabledSteps() {
		if (x.Op == model.OpDeliver || x.Op == model.OpRelist) && x.Who == model.DeploymentController {
			return
		}
	}
	for _, x := range o.Recovery() {
		if x.Op == model.OpRelease && x.Who == model.DeploymentController {
			return
		}
	}
	v.before = available(s)
}

// After checks the step's effect.
func (v *Availability) After(s *model.Snapshot) error {
	if v.before == nil {
		return nil
	}
	now := available(s)
	for uid, b := range v.before {
		a, ok := now[uid]
		if !ok || a.replicas != b.replicas {
			continue
		}
		if a.have < b.have && a.have < b.min {
			return violationf("a rollout keeps replicas − maxUnavailable available", "deployment %s: %s took availability from %d to %d, below %d (replicas %d)", a.name, model.DeploymentController, b.have, a.have, b.min, b.replicas)
		}
	}
	return nil
}

func available(s *model.Snapshot) map[int64]avail {
	out := map[int64]avail{}
	for _, o := range s.List(model.KindDeployment) {
		d := o.(*model.Deployment)
		if d.Deleting {
			continue
		}
		_, unavailable := model.ResolveSurge(d.Replicas, d.MaxSurge, d.MaxUnavailable)
		out[d.UID] = avail{name: d.Name, min: d.Replicas - unavailable, replicas: d.Replicas}
	}
	for _, o := range s.List(model.KindReplicaSet) {
		rs := o.(*model.ReplicaSet)
		a, ok := out[rs.Owner.UID]
		if !ok || rs.Deleting || rs.Owner.Kind != model.KindDeployment {
			continue
		}
		a.have += min(rs.Replicas, rs.Status.ReadyReplicas)
		out[rs.Owner.UID] = a
	}
	return out
}
