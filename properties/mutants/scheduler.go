package mutants

import (
	"context"

	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/impl/client"
	"github.com/converge-dev/converge/impl/cluster"
	"github.com/converge-dev/converge/impl/controller"
	"github.com/converge-dev/converge/impl/project"
	"github.com/converge-dev/converge/model"
)

// updateBinder schedules as the built-in does (model.PickNode over its
// caches) but binds by updating the pod it cached: no resourceVersion, so
// no CAS, and no binding subresource, so nobody checks the node is still
// there and Ready.
type updateBinder struct {
	client client.Client
	pods   *controller.Cache
	nodes  *controller.Cache
	uids   *project.UIDs
}

func newUpdateBinder(env cluster.ControllerEnv) controller.Reconciler {
	return &updateBinder{client: env.Client, pods: env.Cache(model.KindPod), nodes: env.Cache(model.KindNode), uids: project.NewUIDs()}
}

func (s *updateBinder) Reconcile(ctx context.Context, req controller.Request) (controller.Result, error) {
	p, ok := get[*api.Pod](s.pods, req)
	if !ok || p.Spec.NodeName != "" || p.DeletionTimestamp != nil {
		return controller.Result{}, nil
	}
	mp, err := project.ToModel(p, s.uids)
	if err != nil {
		return controller.Result{}, err
	}
	nodes, err := s.project(s.nodes)
	if err != nil {
		return controller.Result{}, err
	}
	pods, err := s.project(s.pods)
	if err != nil {
		return controller.Result{}, err
	}
	node := model.PickNode(mp.(*model.Pod), nodes, pods)
	if node == "" {
		return controller.Result{}, nil // a node event queues the pod again
	}
	bound := api.DeepCopy(p)
	bound.Spec.NodeName = node
	bound.ResourceVersion = "" // the bug: last write wins
	_, err = s.client.Update(ctx, bound)
	return controller.Result{}, err
}

func (s *updateBinder) project(c *controller.Cache) ([]model.Obj, error) {
	var out []model.Obj
	for _, obj := range c.List() {
		o, err := project.ToModel(obj, s.uids)
		if err != nil {
			return nil, err
		}
		out = append(out, o)
	}
	return out, nil
}
