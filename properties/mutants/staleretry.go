package mutants

import (
	"context"
	"strconv"

	"github.com/converge-dev/converge/examples/controller"
	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/impl/client"
	"github.com/converge-dev/converge/impl/cluster"
	ctrl "github.com/converge-dev/converge/impl/controller"
	"github.com/converge-dev/converge/model"
)

// staleRetrier is the example's replicaset controller that also stamps
// each ReplicaSet with the number of pods it counted (an annotation,
// written with a full Update of its cached copy) and has the stale-retry
// bug (class 2): on a conflict it re-sends the same cached copy without a
// resourceVersion, "to make sure it lands". The copy is older than what is
// stored, so the forced write reverts whatever changed meanwhile: the
// deployment controller's new spec.replicas.
type staleRetrier struct {
	inner  ctrl.Reconciler
	client client.Client
	sets   *ctrl.Cache
	pods   *ctrl.Cache
}

var _ ctrl.Reconciler = (*staleRetrier)(nil)

// countedAnnotation is where staleRetrier stamps its count.
const countedAnnotation = "mutants.converge.dev/counted"

func newStaleRetrier(env cluster.ControllerEnv) ctrl.Reconciler {
	return &staleRetrier{inner: controller.New(env), client: env.Client, sets: env.Cache(model.KindReplicaSet), pods: env.Cache(model.KindPod)}
}

func (s *staleRetrier) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	if res, err := s.inner.Reconcile(ctx, req); err != nil || res.Requeue || res.RequeueAfter > 0 {
		return res, err
	}
	rs, ok := get[*api.ReplicaSet](s.sets, req)
	if !ok || rs.DeletionTimestamp != nil {
		return ctrl.Result{}, nil
	}
	n := strconv.Itoa(len(controller.ActivePods(s.pods, rs)))
	if rs.Annotations[countedAnnotation] == n {
		return ctrl.Result{}, nil
	}
	stamped := api.DeepCopy(rs)
	if stamped.Annotations == nil {
		stamped.Annotations = map[string]string{}
	}
	stamped.Annotations[countedAnnotation] = n
	_, err := s.client.Update(ctx, stamped)
	for try := 0; api.IsConflict(err) && try < 3; try++ {
		forced := api.DeepCopy(stamped)
		forced.ResourceVersion = "" // the bug: a stale copy, forced
		_, err = s.client.Update(ctx, forced)
	}
	return ctrl.Result{}, err
}
