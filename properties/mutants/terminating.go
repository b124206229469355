package mutants

import (
	"context"

	example "github.com/converge-dev/converge/examples/replicaset"
	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/impl/client"
	"github.com/converge-dev/converge/impl/cluster"
	ctrl "github.com/converge-dev/converge/impl/controller"
	"github.com/converge-dev/converge/model"
)

// countsTerminating is the example's replicaset controller, expectations
// included, except that it counts a terminating pod as one of its own:
// when a pod is deleted it makes no replacement until the pod is gone for
// good, so a Deployment runs short of pods for the whole grace period.
// It converges in the end, which is why only the caught-up oracle sees it.
type countsTerminating struct {
	client   client.Client
	sets     *ctrl.Cache
	pods     *ctrl.Cache
	expected map[string]map[string]int64 // ReplicaSet -> pod -> revision written
}

func newCountsTerminating(env cluster.ControllerEnv) ctrl.Reconciler {
	return &countsTerminating{client: env.Client, sets: env.Cache(model.KindReplicaSet), pods: env.Cache(model.KindPod), expected: map[string]map[string]int64{}}
}

func (r *countsTerminating) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	rs, ok := get[*api.ReplicaSet](r.sets, req)
	if !ok || rs.DeletionTimestamp != nil {
		return ctrl.Result{}, nil
	}
	if met, err := r.satisfied(ctx, req); err != nil || !met {
		return ctrl.Result{}, err
	}
	var pods, active []*api.Pod
	for _, o := range r.pods.List() {
		if p := o.(*api.Pod); example.ControlledBy(p.OwnerReferences, string(rs.UID)) {
			pods = append(pods, p) // the bug: terminating pods count
			if p.DeletionTimestamp == nil {
				active = append(active, p)
			}
		}
	}
	want := 0
	if rs.Spec.Replicas != nil {
		want = int(*rs.Spec.Replicas)
	}
	wrote := map[string]int64{}
	r.expected[req.Key()] = wrote
	switch diff := want - len(pods); {
	case diff > 0:
		for range diff {
			p, err := r.client.Create(ctx, example.PodFor(rs))
			if err != nil {
				return ctrl.Result{}, err
			}
			wrote[api.Meta(p).Name] = example.RevOf(p)
		}
	case diff < 0:
		for _, p := range example.DeletionOrder(active)[:min(-diff, len(active))] {
			gone, err := r.client.Delete(ctx, "pods", p.Namespace, p.Name, example.Precondition(p))
			if err != nil {
				return ctrl.Result{}, err
			}
			if gone != nil {
				wrote[p.Name] = example.RevOf(gone)
			}
		}
	default:
		return ctrl.Result{}, example.WriteStatus(ctx, r.client, rs, active)
	}
	return ctrl.Result{}, nil
}

// satisfied is the example's expectations check: every pod of the last
// reconcile's writes shows in the cache at least as new as the write, or
// a live read says it is gone.
func (r *countsTerminating) satisfied(ctx context.Context, req ctrl.Request) (bool, error) {
	for name, rev := range r.expected[req.Key()] {
		if cached, ok := r.pods.Get(req.Namespace, name); ok {
			if example.RevOf(cached) < rev {
				return false, nil
			}
			continue
		}
		_, err := r.client.Get(ctx, "pods", req.Namespace, name)
		switch {
		case api.IsNotFound(err):
			continue
		case err != nil:
			return false, err
		}
		return false, nil
	}
	return true, nil
}

// newTerminatingEndpoints lists pods that are shutting down: traffic keeps
// going to a pod after its deletion, until it is gone for good.
func newTerminatingEndpoints(env cluster.ControllerEnv) ctrl.Reconciler {
	e := newEndpoints(env)
	e.keepTerminating = true
	return e
}
