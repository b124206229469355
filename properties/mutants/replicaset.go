package mutants

import (
	"context"

	"github.com/converge-dev/converge/examples/replicaset"
	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/impl/client"
	"github.com/converge-dev/converge/impl/cluster"
	ctrl "github.com/converge-dev/converge/impl/controller"
	"github.com/converge-dev/converge/model"
)

// replicaSets is the example's replicaset controller without its
// expectations, optionally also edge-triggered.
type replicaSets struct {
	client client.Client
	sets   *ctrl.Cache
	pods   *ctrl.Cache
	// edge, when set, remembers the ReplicaSets already handled and never
	// looks at them again: the controller reacts to creation only.
	edge map[string]bool
}

var _ ctrl.Reconciler = (*replicaSets)(nil)

func newReplicaSets(env cluster.ControllerEnv) *replicaSets {
	return &replicaSets{client: env.Client, sets: env.Cache(model.KindReplicaSet), pods: env.Cache(model.KindPod)}
}

func newNoExpectations(env cluster.ControllerEnv) ctrl.Reconciler { return newReplicaSets(env) }

func newEdgeTriggered(env cluster.ControllerEnv) ctrl.Reconciler {
	r := newReplicaSets(env)
	r.edge = map[string]bool{}
	return r
}

func (r *replicaSets) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	rs, ok := get[*api.ReplicaSet](r.sets, req)
	if !ok || rs.DeletionTimestamp != nil {
		return ctrl.Result{}, nil
	}
	if r.edge != nil {
		if r.edge[string(rs.UID)] {
			return ctrl.Result{}, nil
		}
		r.edge[string(rs.UID)] = true
	}
	pods := replicaset.ActivePods(r.pods, rs)
	want := 0
	if rs.Spec.Replicas != nil {
		want = int(*rs.Spec.Replicas)
	}
	switch diff := want - len(pods); {
	case diff > 0:
		for range diff {
			if _, err := r.client.Create(ctx, replicaset.PodFor(rs)); err != nil {
				return ctrl.Result{}, err
			}
		}
	case diff < 0:
		for _, p := range replicaset.DeletionOrder(pods)[:-diff] {
			if _, err := r.client.Delete(ctx, "pods", p.Namespace, p.Name, precondition(p)); err != nil {
				return ctrl.Result{}, err
			}
		}
	default:
		return ctrl.Result{}, replicaset.WriteStatus(ctx, r.client, rs, pods)
	}
	return ctrl.Result{}, nil
}
