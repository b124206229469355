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
// generation it last saw, the kind of bookkeeping many operators do. The
// correct one changes the live copy it read. Its two buggy writes both
// revert whatever the user changed since the cache last heard (a kubectl
// scale, a set image).
type annotator struct {
	write       annotatorWrite
	client      clientWithGet
	deployments *controller.Cache
}

// annotatorWrite is how the annotator writes its stamp.
type annotatorWrite int

const (
	// writesLiveCopy changes the copy it just read: correct.
	writesLiveCopy annotatorWrite = iota
	// writesStaleCopy writes back its cached copy with the live
	// resourceVersion taken from a read, so the write passes the CAS
	// (class 1, a lost update).
	writesStaleCopy
	// retriesStaleCopy writes its cached copy with the cached
	// resourceVersion, which is right, but on a conflict re-sends the same
	// copy without a resourceVersion "to make sure it lands" (class 2).
	retriesStaleCopy
)

// clientWithGet is the part of the client the annotator needs.
type clientWithGet interface {
	Get(ctx context.Context, resource, namespace, name string) (api.Object, error)
	Update(ctx context.Context, obj api.Object) (api.Object, error)
}

// annotatorSpec adds the annotator as a new component, writing as w says.
func annotatorSpec(w annotatorWrite) cluster.ControllerSpec {
	return cluster.ControllerSpec{Name: "deployment-annotator", Watches: []model.Kind{model.KindDeployment},
		New: func(env cluster.ControllerEnv) controller.Reconciler {
			return &annotator{write: w, client: env.Client, deployments: env.Cache(model.KindDeployment)}
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
	if a.write == retriesStaleCopy {
		return controller.Result{}, a.stampRetrying(ctx, cached, gen)
	}
	live, err := a.client.Get(ctx, "deployments", req.Namespace, req.Name)
	if api.IsNotFound(err) {
		return controller.Result{}, nil
	}
	if err != nil {
		return controller.Result{}, err
	}
	next := api.DeepCopy(live.(*api.Deployment))
	if a.write == writesStaleCopy {
		// The bug: the cached copy, made to pass the CAS.
		next = api.DeepCopy(cached)
		next.ResourceVersion = api.Meta(live).ResourceVersion
	}
	stamp(next, gen)
	_, err = a.client.Update(ctx, next)
	return controller.Result{}, err
}

// stampRetrying is the class 2 bug: a conflict means the cache was stale,
// and the retry forces the stale copy over what is stored.
func (a *annotator) stampRetrying(ctx context.Context, cached *api.Deployment, gen string) error {
	next := api.DeepCopy(cached)
	stamp(next, gen)
	_, err := a.client.Update(ctx, next)
	for try := 0; api.IsConflict(err) && try < 3; try++ {
		forced := api.DeepCopy(next)
		forced.ResourceVersion = "" // the bug
		_, err = a.client.Update(ctx, forced)
	}
	if api.IsNotFound(err) {
		return nil
	}
	return err
}

func stamp(d *api.Deployment, gen string) {
	if d.Annotations == nil {
		d.Annotations = map[string]string{}
	}
	d.Annotations[seenAnnotation] = gen
}
