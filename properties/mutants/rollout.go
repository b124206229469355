package mutants

import (
	"context"
	"maps"

	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/impl/cluster"
	"github.com/converge-dev/converge/impl/controller"
	"github.com/converge-dev/converge/impl/project"
	"github.com/converge-dev/converge/model"
)

// unavailableBlind rolls a Deployment out within maxSurge, but scales the
// old ReplicaSets down as soon as the total is over replicas, whether or
// not the new pods are ready: maxUnavailable is ignored, and a rollout of
// ready pods to pods that are not ready yet takes the service down. The
// end state is right, so only the availability oracle sees it.
type unavailableBlind struct{ *surgeBlind }

func newUnavailableBlind(env cluster.ControllerEnv) controller.Reconciler {
	return unavailableBlind{newSurgeBlind(env).(*surgeBlind)}
}

func (s unavailableBlind) Reconcile(ctx context.Context, req controller.Request) (controller.Result, error) {
	obj, ok := get[*api.Deployment](s.deployments, req)
	if !ok || obj.DeletionTimestamp != nil {
		return controller.Result{}, nil
	}
	md, err := project.ToModel(obj, s.uids)
	if err != nil {
		return controller.Result{}, err
	}
	d := md.(*model.Deployment)
	hash := model.TemplateHash(d.Image, d.PodLabels, d.Template)
	var cur *owned
	var old []owned
	total, maxOld := 0, 0
	for _, o := range s.sets.List() {
		m, err := project.ToModel(o, s.uids)
		if err != nil {
			return controller.Result{}, err
		}
		rs := m.(*model.ReplicaSet)
		switch {
		case rs.Owner.UID != d.UID || rs.Deleting:
		case rs.Hash == hash:
			cur = &owned{o.(*api.ReplicaSet), rs}
		default:
			old = append(old, owned{o.(*api.ReplicaSet), rs})
			total += rs.Replicas
			maxOld = max(maxOld, rs.Revision)
		}
	}
	surge, _ := model.ResolveSurge(d.Replicas, d.MaxSurge, d.MaxUnavailable)
	switch {
	case cur == nil:
		n := d.Replicas
		if total > 0 {
			n = max(0, min(d.Replicas, d.Replicas+surge-total))
		}
		labels := maps.Clone(d.PodLabels)
		if labels == nil {
			labels = map[string]string{}
		}
		labels[model.PodTemplateHashLabel] = hash
		rs := &model.ReplicaSet{
			Meta:     model.Meta{Name: model.ReplicaSetName(d.Name, hash), Labels: labels, Owner: model.Owner{Kind: model.KindDeployment, Name: d.Name, UID: d.UID}},
			Replicas: n, Image: d.Image, PodLabels: labels, NodeSelector: d.NodeSelector, Template: d.Template, Hash: hash,
			Revision: maxOld + 1,
		}
		created, err := project.New(rs, obj, s.uids)
		if err == nil {
			_, err = s.client.Create(ctx, created)
		}
		return controller.Result{}, err
	case cur.rs.Revision <= maxOld:
		next := *cur.rs
		next.Revision = maxOld + 1
		upd, err := project.Apply(cur.obj, &next, s.uids)
		if err == nil {
			_, err = s.client.Update(ctx, upd)
		}
		return controller.Result{}, err
	case total == 0 && cur.rs.Replicas != d.Replicas:
		return controller.Result{}, s.scale(ctx, cur, d.Replicas)
	case total > 0 && total+cur.rs.Replicas < d.Replicas+surge && cur.rs.Replicas < d.Replicas:
		up := min(d.Replicas+surge-total-cur.rs.Replicas, d.Replicas-cur.rs.Replicas)
		return controller.Result{}, s.scale(ctx, cur, cur.rs.Replicas+up)
	case total > 0:
		// The bug: down to replicas in all, ready or not.
		excess := total + cur.rs.Replicas - d.Replicas
		for _, o := range old {
			if excess <= 0 {
				break
			}
			if by := min(excess, o.rs.Replicas); by > 0 {
				if err := s.scale(ctx, &o, o.rs.Replicas-by); err != nil {
					return controller.Result{}, err
				}
				excess -= by
			}
		}
	}
	return controller.Result{}, s.writeStatus(ctx, obj, d, old, cur)
}
