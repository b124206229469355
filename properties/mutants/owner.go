package mutants

import (
	"context"

	example "github.com/converge-dev/converge/examples/replicaset"
	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/impl/client"
	"github.com/converge-dev/converge/impl/cluster"
	ctrl "github.com/converge-dev/converge/impl/controller"
)

// ownerLater is a client that creates a pod without its ownerReferences
// and sets them in a second write, as a controller does that builds a
// child first and adopts it after. A crash between the two writes leaves
// a running pod that no one owns: the owner's controller counts only its
// own pods, so it makes another, and the first one serves forever.
type ownerLater struct {
	client.Client
}

func (c ownerLater) Create(ctx context.Context, obj api.Object) (api.Object, error) {
	p, ok := obj.(*api.Pod)
	if !ok || len(p.OwnerReferences) == 0 {
		return c.Client.Create(ctx, obj)
	}
	bare := api.DeepCopy(p)
	bare.OwnerReferences = nil
	created, err := c.Client.Create(ctx, bare)
	if err != nil {
		return nil, err
	}
	adopted := api.DeepCopy(created.(*api.Pod))
	adopted.OwnerReferences = p.OwnerReferences
	return c.Client.Update(ctx, adopted)
}

// newOwnerSecondWrite is the example's replicaset controller over that
// client.
func newOwnerSecondWrite(env cluster.ControllerEnv) ctrl.Reconciler {
	env.Client = ownerLater{env.Client}
	return example.New(env)
}
