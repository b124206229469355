package mutants

import (
	"context"

	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/impl/client"
	"github.com/converge-dev/converge/impl/cluster"
	"github.com/converge-dev/converge/impl/controller"
	"github.com/converge-dev/converge/model"
)

// cacheTrustingGC deletes a dependent ("replicasets/NAME" or "pods/NAME")
// whose controller owner its cache does not show. The correct collector
// confirms with a live read first: a stale cache may simply not show a new
// owner yet, or still show a dependent that was adopted.
type cacheTrustingGC struct {
	client client.Client
	cache  func(model.Kind) *controller.Cache
}

func newCacheTrustingGC(env cluster.ControllerEnv) controller.Reconciler {
	return &cacheTrustingGC{client: env.Client, cache: env.Cache}
}

var ownerKinds = map[string]model.Kind{"Deployment": model.KindDeployment, "ReplicaSet": model.KindReplicaSet}

func (g *cacheTrustingGC) Reconcile(ctx context.Context, req controller.Request) (controller.Result, error) {
	ref, ok := model.ParseRef(req.Name)
	if !ok {
		return controller.Result{}, nil
	}
	obj, ok := get[api.Object](g.cache(ref.Kind), controller.Request{Namespace: req.Namespace, Name: ref.Name})
	if !ok || obj.GetObjectMeta().DeletionTimestamp != nil {
		return controller.Result{}, nil
	}
	owner, ok := controllerRef(obj)
	kind, known := ownerKinds[owner.Kind]
	if !ok || !known {
		return controller.Result{}, nil
	}
	if cur, ok := get[api.Object](g.cache(kind), controller.Request{Namespace: req.Namespace, Name: owner.Name}); ok && cur.GetObjectMeta().UID == owner.UID {
		return controller.Result{}, nil
	}
	// The bug: no live read of the owner before the delete.
	_, err := g.client.Delete(ctx, ref.Kind.Resource(), req.Namespace, ref.Name, precondition(obj))
	return controller.Result{}, err
}
