package mutants

import (
	"context"
	"strconv"

	"github.com/converge-dev/converge/examples/replicaset"
	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/impl/client"
	"github.com/converge-dev/converge/impl/cluster"
	ctrl "github.com/converge-dev/converge/impl/controller"
	"github.com/converge-dev/converge/model"
)

// staleRetrier is the example's replicaset controller that, after a pass
// that created or deleted pods, stamps the ReplicaSet with the replica
// count it worked toward (an annotation, written with a full Update of its
// cached copy), and has the stale-retry bug (class 2): on a conflict it
// re-sends the same cached copy without a resourceVersion, "to make sure
// it lands". The copy is older than what is stored, so the forced write
// reverts whatever changed meanwhile: the deployment controller's new
// spec.replicas.
type staleRetrier struct {
	inner  ctrl.Reconciler
	client client.Client
	sets   *ctrl.Cache
	wrote  *int // the inner controller's successful writes so far
}

var _ ctrl.Reconciler = (*staleRetrier)(nil)

// targetAnnotation is where staleRetrier stamps the count it worked toward.
const targetAnnotation = "mutants.converge.dev/target"

// counting counts a client's successful creates and deletes.
type counting struct {
	client.Client
	n *int
}

func (c counting) Create(ctx context.Context, obj api.Object) (api.Object, error) {
	o, err := c.Client.Create(ctx, obj)
	if err == nil {
		*c.n++
	}
	return o, err
}

func (c counting) Delete(ctx context.Context, resource, namespace, name string, opts api.DeleteOptions) (api.Object, error) {
	o, err := c.Client.Delete(ctx, resource, namespace, name, opts)
	if err == nil {
		*c.n++
	}
	return o, err
}

func newStaleRetrier(env cluster.ControllerEnv) ctrl.Reconciler {
	s := &staleRetrier{client: env.Client, sets: env.Cache(model.KindReplicaSet), wrote: new(int)}
	env.Client = counting{env.Client, s.wrote}
	s.inner = replicaset.New(env)
	return s
}

func (s *staleRetrier) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	before := *s.wrote
	if res, err := s.inner.Reconcile(ctx, req); err != nil || res.Requeue || res.RequeueAfter > 0 {
		return res, err
	}
	rs, ok := get[*api.ReplicaSet](s.sets, req)
	if !ok || rs.DeletionTimestamp != nil || *s.wrote == before || rs.Spec.Replicas == nil {
		return ctrl.Result{}, nil
	}
	stamped := api.DeepCopy(rs)
	if stamped.Annotations == nil {
		stamped.Annotations = map[string]string{}
	}
	stamped.Annotations[targetAnnotation] = strconv.Itoa(int(*rs.Spec.Replicas))
	_, err := s.client.Update(ctx, stamped)
	for try := 0; api.IsConflict(err) && try < 3; try++ {
		forced := api.DeepCopy(stamped)
		forced.ResourceVersion = "" // the bug: a stale copy, forced
		_, err = s.client.Update(ctx, forced)
	}
	return ctrl.Result{}, err
}
