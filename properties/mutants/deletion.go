package mutants

import (
	"context"

	example "github.com/converge-dev/converge/examples/replicaset"
	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/impl/client"
	"github.com/converge-dev/converge/impl/cluster"
	"github.com/converge-dev/converge/impl/controller"
	"github.com/converge-dev/converge/model"
)

// deletionBlind is the example's replicaset controller, except that it
// keeps topping up the pods of a ReplicaSet being deleted, where the
// example leaves it alone: in a foreground cascade it replaces every pod
// the garbage collector deletes.
type deletionBlind struct {
	inner  controller.Reconciler
	client client.Client
	sets   *controller.Cache
	pods   *controller.Cache
}

func newDeletionBlind(env cluster.ControllerEnv) controller.Reconciler {
	return &deletionBlind{inner: example.New(env), client: env.Client, sets: env.Cache(model.KindReplicaSet), pods: env.Cache(model.KindPod)}
}

func (r *deletionBlind) Reconcile(ctx context.Context, req controller.Request) (controller.Result, error) {
	rs, ok := get[*api.ReplicaSet](r.sets, req)
	if !ok || rs.DeletionTimestamp == nil {
		return r.inner.Reconcile(ctx, req)
	}
	want := 0
	if rs.Spec.Replicas != nil {
		want = int(*rs.Spec.Replicas)
	}
	for range want - len(example.ActivePods(r.pods, rs)) { // the bug
		if _, err := r.client.Create(ctx, example.PodFor(rs)); err != nil {
			return controller.Result{}, err
		}
	}
	return controller.Result{}, nil
}
