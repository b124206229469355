package mutants

import (
	"context"
	"strconv"

	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/impl/cluster"
	"github.com/converge-dev/converge/impl/controller"
	"github.com/converge-dev/converge/model"
)

// seenAnnotation is what the annotator stamps on every Deployment: the
// generation it last saw.
const seenAnnotation = "converge.dev/seen-generation"

// annotator is a small added controller that stamps on every Deployment the
// generation it last saw, the kind of bookkeeping many operators do. stale makes it
// write back its cached copy with the live resourceVersion taken from a
// read, so the write passes the CAS: whatever the user changed since the
// cache last heard (a kubectl scale, a set image) is reverted. The correct
// one changes the live copy it read.
type annotator struct {
	stale       bool
	client      clientWithGet
	deployments *controller.Cache
}

// clientWithGet is the part of the client the annotator needs.
type clientWithGet interface {
	Get(ctx context.Context, resource, namespace, name string) (api.Object, error)
	Update(ctx context.Context, obj api.Object) (api.Object, error)
}

// annotatorSpec adds the annotator as a new component; stale selects the
// buggy write.
func annotatorSpec(stale bool) cluster.ControllerSpec {
	return cluster.ControllerSpec{Name: "deployment-annotator", Watches: []model.Kind{model.KindDeployment},
		New: func(env cluster.ControllerEnv) controller.Reconciler {
			return &annotator{stale: stale, client: env.Client, deployments: env.Cache(model.KindDeployment)}
		}}
}

func (a *annotator) Reconcile(ctx context.Context, req controller.Request) (controller.Result, error) {
	cached, ok := get[*api.Deployment](a.deployments, req)
	if !ok || cached.DeletionTimestamp != nil {
		return controller.Result{}, nil
	}
	gen := strconv.FormatInt(cached.Generation, 10)
	if cached.Annotations[seenAnnotation] == gen {
		return controller.Result{}, nil
	}
	live, err := a.client.Get(ctx, "deployments", req.Namespace, req.Name)
	if api.IsNotFound(err) {
		return controller.Result{}, nil
	}
	if err != nil {
		return controller.Result{}, err
	}
	next := api.DeepCopy(live.(*api.Deployment))
	if a.stale {
		// The bug: the cached copy, made to pass the CAS.
		next = api.DeepCopy(cached)
		next.ResourceVersion = live.GetObjectMeta().ResourceVersion
	}
	if next.Annotations == nil {
		next.Annotations = map[string]string{}
	}
	next.Annotations[seenAnnotation] = gen
	_, err = a.client.Update(ctx, next)
	return controller.Result{}, err
}
