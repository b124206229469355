package mutants

import (
	"context"
	"slices"

	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/impl/client"
	"github.com/converge-dev/converge/impl/cluster"
	"github.com/converge-dev/converge/impl/controller"
	"github.com/converge-dev/converge/impl/registry"
	"github.com/converge-dev/converge/model"
)

// apiGC is a garbage collector written against the API, for keys
// "replicasets/NAME", "pods/NAME" and "deployments/NAME": it deletes a
// dependent whose controller owner is gone, and finishes an owner's
// orphan or foreground deletion. Each mutant turns on one bug.
type apiGC struct {
	client client.Client
	cache  func(model.Kind) *controller.Cache
	// trustCache: a dependent whose owner its cache lacks is deleted with
	// no live read (a stale cache may just not show a new owner yet).
	trustCache bool
	// forgetTerminating: a foreground-deleted owner's dependents that are
	// being deleted already are not waited for, so its finalizer goes
	// while they terminate.
	forgetTerminating bool
}

func newCacheTrustingGC(env cluster.ControllerEnv) controller.Reconciler {
	return &apiGC{client: env.Client, cache: env.Cache, trustCache: true}
}

func newTerminatingForgettingGC(env cluster.ControllerEnv) controller.Reconciler {
	return &apiGC{client: env.Client, cache: env.Cache, forgetTerminating: true}
}

var ownerKinds = map[string]model.Kind{"Deployment": model.KindDeployment, "ReplicaSet": model.KindReplicaSet}

func (g *apiGC) Reconcile(ctx context.Context, req controller.Request) (controller.Result, error) {
	ref, ok := model.ParseRef(req.Name)
	if !ok {
		return controller.Result{}, nil
	}
	obj, ok := get[api.Object](g.cache(ref.Kind), controller.Request{Namespace: req.Namespace, Name: ref.Name})
	if !ok {
		return controller.Result{}, nil
	}
	m := api.Meta(obj)
	if m.DeletionTimestamp != nil && (slices.Contains(m.Finalizers, model.FinalizerOrphan) || slices.Contains(m.Finalizers, model.FinalizerForeground)) {
		return controller.Result{}, g.finish(ctx, ref, req.Namespace, string(m.UID))
	}
	if m.DeletionTimestamp != nil {
		return controller.Result{}, nil
	}
	owner, ok := controllerRef(obj)
	kind, known := ownerKinds[owner.Kind]
	if !ok || !known {
		return controller.Result{}, nil
	}
	if cur, ok := get[api.Object](g.cache(kind), controller.Request{Namespace: req.Namespace, Name: owner.Name}); ok && api.Meta(cur).UID == owner.UID {
		return controller.Result{}, nil
	}
	if !g.trustCache {
		cur, err := g.client.Get(ctx, kind.Resource(), req.Namespace, owner.Name)
		if err == nil && api.Meta(cur).UID == owner.UID {
			return controller.Result{}, nil
		}
		if err != nil && !api.IsNotFound(err) {
			return controller.Result{}, err
		}
	}
	_, err := g.client.Delete(ctx, ref.Kind.Resource(), req.Namespace, ref.Name, precondition(obj))
	return controller.Result{}, ignoreNotFound(err)
}

// finish orphans or deletes the live owner's live dependents, then drops
// its finalizer: at once for orphan, once none is left for foreground.
func (g *apiGC) finish(ctx context.Context, ref model.Ref, ns, uid string) error {
	owner, err := g.client.Get(ctx, ref.Kind.Resource(), ns, ref.Name)
	if err != nil || string(api.Meta(owner).UID) != uid {
		return ignoreNotFound(err)
	}
	deps := map[string][]api.Object{} // owner UID -> dependents
	for _, resource := range []string{"replicasets", "pods"} {
		l, err := g.client.List(ctx, resource, ns, registry.ListOptions{})
		if err != nil {
			return err
		}
		for _, d := range api.Items(l) {
			if o, ok := controllerRef(d); ok {
				deps[string(o.UID)] = append(deps[string(o.UID)], d)
			}
		}
	}
	om := api.Meta(owner)
	if slices.Contains(om.Finalizers, model.FinalizerOrphan) {
		for _, d := range deps[uid] {
			dm := api.Meta(d)
			dm.OwnerReferences = slices.DeleteFunc(dm.OwnerReferences, func(r api.OwnerReference) bool { return string(r.UID) == uid })
			if _, err := g.client.Update(ctx, d); err != nil {
				return err
			}
		}
		return g.dropFinalizer(ctx, owner, model.FinalizerOrphan)
	}
	left := 0
	for _, d := range deps[uid] {
		dm := api.Meta(d)
		if dm.DeletionTimestamp != nil {
			if !g.forgetTerminating {
				left++
			}
			continue
		}
		left++
		opts := precondition(d)
		if len(deps[string(dm.UID)]) > 0 {
			fg := api.DeletePropagationForeground
			opts.PropagationPolicy = &fg
		}
		ri, _ := api.ResourceFor(d)
		if _, err := g.client.Delete(ctx, ri.Resource, ns, dm.Name, opts); ignoreNotFound(err) != nil {
			return err
		}
	}
	if left > 0 {
		return nil // their events bring the owner back
	}
	return g.dropFinalizer(ctx, owner, model.FinalizerForeground)
}

func (g *apiGC) dropFinalizer(ctx context.Context, owner api.Object, f string) error {
	m := api.Meta(owner)
	m.Finalizers = slices.DeleteFunc(slices.Clone(m.Finalizers), func(x string) bool { return x == f })
	_, err := g.client.Update(ctx, owner)
	return ignoreNotFound(err)
}

func ignoreNotFound(err error) error {
	if api.IsNotFound(err) {
		return nil
	}
	return err
}
