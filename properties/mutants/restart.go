package mutants

import (
	"context"

	"github.com/converge-dev/converge/examples/replicaset"
	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/impl/cluster"
	ctrl "github.com/converge-dev/converge/impl/controller"
	"github.com/converge-dev/converge/model"
)

// restartTruster is the example's replicaset controller with the restart
// bug (class 7): when it starts, it takes every ReplicaSet that already
// has pods as handled by its previous incarnation and assumes nothing is
// owed until the ReplicaSet itself changes. A crash in the middle of a
// batch of creates leaves the set short for good: pod events queue it
// again, but the ReplicaSet's resourceVersion has not moved.
type restartTruster struct {
	inner   ctrl.Reconciler
	sets    *ctrl.Cache
	pods    *ctrl.Cache
	started bool
	trusted map[string]string // ReplicaSet key -> resourceVersion taken as done
}

var _ ctrl.Reconciler = (*restartTruster)(nil)

func newRestartTruster(env cluster.ControllerEnv) ctrl.Reconciler {
	return &restartTruster{inner: replicaset.New(env), sets: env.Cache(model.KindReplicaSet), pods: env.Cache(model.KindPod), trusted: map[string]string{}}
}

func (r *restartTruster) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	if !r.started {
		r.started = true
		for _, o := range r.sets.List() {
			if rs := o.(*api.ReplicaSet); len(replicaset.ActivePods(r.pods, rs)) > 0 {
				r.trusted[model.Key(rs.Namespace, rs.Name)] = rs.ResourceVersion // the bug: "a previous me finished it"
			}
		}
	}
	if rs, ok := get[*api.ReplicaSet](r.sets, req); ok && r.trusted[req.Key()] == rs.ResourceVersion {
		return ctrl.Result{}, nil
	}
	delete(r.trusted, req.Key())
	return r.inner.Reconcile(ctx, req)
}
