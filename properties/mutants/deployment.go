package mutants

import (
	"context"
	"maps"

	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/impl/client"
	"github.com/converge-dev/converge/impl/cluster"
	"github.com/converge-dev/converge/impl/controller"
	"github.com/converge-dev/converge/impl/project"
	"github.com/converge-dev/converge/model"
)

// surgeBlind rolls a Deployment out by creating the new template's
// ReplicaSet at full size, then scaling the old ones to zero once the new
// one is ready: simple, and it overshoots replicas+maxSurge on every
// rollout. Objects are built through impl/project, as the built-in's are.
type surgeBlind struct {
	client      client.Client
	deployments *controller.Cache
	sets        *controller.Cache
	uids        *project.UIDs
}

func newSurgeBlind(env cluster.ControllerEnv) controller.Reconciler {
	return &surgeBlind{client: env.Client, deployments: env.Cache(model.KindDeployment), sets: env.Cache(model.KindReplicaSet), uids: project.NewUIDs()}
}

// owned is one ReplicaSet of the Deployment, as API object and model.
type owned struct {
	obj *api.ReplicaSet
	rs  *model.ReplicaSet
}

func (s *surgeBlind) Reconcile(ctx context.Context, req controller.Request) (controller.Result, error) {
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
	for _, o := range s.sets.List() {
		m, err := project.ToModel(o, s.uids)
		if err != nil {
			return controller.Result{}, err
		}
		rs := m.(*model.ReplicaSet)
		if rs.Owner.UID != d.UID || rs.Deleting {
			continue
		}
		if rs.Hash == hash {
			cur = &owned{o.(*api.ReplicaSet), rs}
		} else {
			old = append(old, owned{o.(*api.ReplicaSet), rs})
		}
	}
	maxOld := 0
	for _, o := range old {
		maxOld = max(maxOld, o.rs.Revision)
	}
	switch {
	case cur == nil:
		labels := maps.Clone(d.PodLabels)
		if labels == nil {
			labels = map[string]string{}
		}
		labels[model.PodTemplateHashLabel] = hash
		rs := &model.ReplicaSet{
			Meta:     model.Meta{Name: model.ReplicaSetName(d.Name, hash), Labels: labels, Owner: model.Owner{Kind: model.KindDeployment, Name: d.Name, UID: d.UID}},
			Replicas: d.Replicas, // the bug: maxSurge says how many may be added at once
			Image:    d.Image, PodLabels: labels, NodeSelector: d.NodeSelector, Template: d.Template, Hash: hash,
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
	case cur.rs.Replicas != d.Replicas:
		return controller.Result{}, s.scale(ctx, cur, d.Replicas)
	case cur.rs.Status.ReadyReplicas >= d.Replicas:
		for _, o := range old {
			if o.rs.Replicas > 0 {
				if err := s.scale(ctx, &o, 0); err != nil {
					return controller.Result{}, err
				}
			}
		}
	}
	return controller.Result{}, s.writeStatus(ctx, obj, d, old, cur)
}

func (s *surgeBlind) scale(ctx context.Context, o *owned, n int) error {
	rs := *o.rs
	rs.Replicas = n
	upd, err := project.Apply(o.obj, &rs, s.uids)
	if err == nil {
		_, err = s.client.Update(ctx, upd)
	}
	return err
}

// writeStatus sums the ReplicaSets' counts into the Deployment's status,
// as the built-in does, and writes it if it changed.
func (s *surgeBlind) writeStatus(ctx context.Context, obj *api.Deployment, d *model.Deployment, old []owned, cur *owned) error {
	st := model.DeploymentStatus{UpdatedReplicas: cur.rs.Status.Replicas}
	for _, o := range append(old, *cur) {
		st.Replicas += o.rs.Status.Replicas
		st.ReadyReplicas += o.rs.Status.ReadyReplicas
	}
	st.AvailableReplicas = st.ReadyReplicas
	if st == d.Status && d.ObservedGeneration == d.Generation {
		return nil
	}
	nd := *d
	nd.Status, nd.ObservedGeneration = st, d.Generation
	upd, err := project.Apply(obj, &nd, s.uids)
	if err == nil {
		_, err = s.client.UpdateStatus(ctx, upd)
	}
	return err
}
