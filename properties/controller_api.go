package properties

import (
	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/impl/client"
	"github.com/converge-dev/converge/impl/cluster"
	"github.com/converge-dev/converge/impl/controller"
)

// The types a controller written against converge's own client and
// informer caches needs for CheckController (examples/replicaset is one),
// so that its package imports properties and no package under impl/.
// They are aliases: a value of one is the impl type itself.
type (
	// ControllerSpec plugs a controller in place of a built-in component
	// of the same Name, or adds it as a new one.
	ControllerSpec = cluster.ControllerSpec
	// ControllerEnv is what ControllerSpec.New gets: the client, the
	// component's caches and its clock.
	ControllerEnv = cluster.ControllerEnv
	// Reconciler is the controller's reconcile loop.
	Reconciler = controller.Reconciler
	// Request names the object one reconcile is for.
	Request = controller.Request
	// Result says whether and when to reconcile again.
	Result = controller.Result
	// Cache is one watched kind's informer cache.
	Cache = controller.Cache
	// Client is the apiserver client a controller writes through.
	Client = client.Client
	// Object is any object Client and Cache hand out (k8s.io/api's kinds).
	Object = api.Object
)

// IsNotFound reports whether err, from Client, is a 404 NotFound
// Kubernetes Status.
func IsNotFound(err error) bool { return api.IsNotFound(err) }

// Disabled is a spec that keeps the built-in component name's informers,
// queue and faults but reconciles nothing, for a component of the user's
// that takes over its work (CheckController's further specs).
func Disabled(name string) ControllerSpec { return cluster.Disabled(name) }
