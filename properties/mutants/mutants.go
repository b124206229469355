package mutants

import (
	example "github.com/converge-dev/converge/examples/replicaset"
	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/impl/cluster"
	"github.com/converge-dev/converge/impl/controller"
	"github.com/converge-dev/converge/model"
	"github.com/converge-dev/converge/properties/mutants/decide"
)

// Mutant is one buggy controller of the catalogue.
type Mutant struct {
	// Name is short and stable, for tables and test names.
	Name string
	// Bug says what the controller does wrong, in one line.
	Bug string
	// Caught is a substring of the failure the property reports.
	Caught string
	// Spec plugs the buggy controller in place of a built-in component
	// (properties.CheckController, the implementation alone).
	Spec cluster.ControllerSpec
	// Decisions, when set, is the same bug in the shared decision code
	// (package decide), for the model property, the lockstep and
	// `converge check --mutant`.
	Decisions model.Decisions
	// Settle hunts it with CheckController's default generator (settles
	// and rollouts, properties.ImplOptions.Settle), not the uniform one.
	Settle bool
	// TimeTravel hunts it with the time-travel fault drawn for its
	// component (properties.ImplOptions.TimeTravel).
	TimeTravel bool
}

// All is the catalogue, in the README's order.
var All = []Mutant{
	{
		Name:      "replicaset-no-expectations",
		Bug:       "counts pods from its cache without waiting for its own creates to show",
		Caught:    "a ReplicaSet never has more pods than it asked for",
		Spec:      cluster.ControllerSpec{Name: model.ReplicaSetController, New: newNoExpectations},
		Decisions: decide.ReplicaSetNoExpectations,
	},
	{
		Name:   "replicaset-edge-triggered",
		Bug:    "acts only the first time it sees a ReplicaSet, never re-reconciles",
		Caught: "model: not converged",
		Spec:   cluster.ControllerSpec{Name: model.ReplicaSetController, New: newEdgeTriggered},
	},
	{
		Name:      "endpoints-lists-unready",
		Bug:       "lists every selected pod with an IP, ready or not",
		Caught:    "endpoints name only pods that were ready",
		Spec:      cluster.ControllerSpec{Name: model.EndpointsController, New: newUnreadyEndpoints},
		Decisions: decide.EndpointsListsUnready,
	},
	{
		Name:   "endpoints-create-only",
		Bug:    "creates Endpoints but never updates them: \"already exists\" taken as done",
		Caught: "caught-up consistency",
		Spec:   cluster.ControllerSpec{Name: model.EndpointsController, New: newCreateOnlyEndpoints},
	},
	{
		Name:      "gc-trusts-cache",
		Bug:       "deletes a dependent whose owner is missing from its cache, without a live read",
		Caught:    "the garbage collector deletes only orphans",
		Spec:      cluster.ControllerSpec{Name: model.GarbageCollector, New: newCacheTrustingGC},
		Decisions: decide.GCTrustsCache,
	},
	// Issue 16's owner lifecycle (issue 22's class 6), reachable now that
	// deletes draw cascades: a foreground cascade marks the ReplicaSet and
	// its owner, and the garbage collector works through the dependents.
	{
		Name:      "replicaset-ignores-deletion",
		Settle:    true,
		Bug:       "keeps creating pods for a ReplicaSet being deleted (class 6)",
		Caught:    "no controller creates a dependent of an owner being deleted",
		Spec:      cluster.ControllerSpec{Name: model.ReplicaSetController, New: newDeletionBlind},
		Decisions: decide.ReplicaSetIgnoresDeletion,
	},
	{
		Name:      "gc-forgets-terminating",
		Settle:    true,
		Bug:       "drops a foreground owner's finalizer once its dependents are being deleted, not gone (class 6)",
		Caught:    "a foreground-deleted owner goes only after its dependents",
		Spec:      cluster.ControllerSpec{Name: model.GarbageCollector, New: newTerminatingForgettingGC},
		Decisions: decide.GCForgetsTerminating,
	},
	{
		Name:      "namespace-forgets-terminating",
		Settle:    true,
		Bug:       "finalizes a Terminating namespace once its pods are being deleted, not gone (class 6)",
		Caught:    "a Terminating namespace ends empty, and then it is gone",
		Spec:      cluster.ControllerSpec{Name: model.NamespaceController, New: newTerminatingForgettingNamespaces},
		Decisions: decide.NamespaceForgetsTerminating,
	},
	{
		Name:   "deployment-ignores-maxsurge",
		Bug:    "creates a new template's ReplicaSet at full replicas, ignoring maxSurge",
		Caught: "a rollout stays within replicas+maxSurge",
		Spec:   cluster.ControllerSpec{Name: model.DeploymentController, New: newSurgeBlind},
	},
	// Issue 22's bug classes 4 and 7, reachable now that a user's return
	// value decides the retry and transient API errors are a fault (class 2
	// is in Elusive). Both leave the controller idle while it owes pods, so
	// the caught-up oracle sees them before convergence does.
	{
		Name:   "replicaset-swallows-errors",
		Bug:    "logs a failed write and returns nil, so the key is never retried (class 4)",
		Caught: "caught-up consistency",
		Spec:   cluster.ControllerSpec{Name: model.ReplicaSetController, New: newSwallower},
	},
	{
		Name:   "replicaset-trusts-restart",
		Bug:    "after a restart takes every ReplicaSet that has pods as done by its previous incarnation: nothing owed (class 7)",
		Caught: "caught-up consistency",
		Spec:   cluster.ControllerSpec{Name: model.ReplicaSetController, New: newRestartTruster},
	},
	// Issue 22, classes 1 (lost user intent), 3 (leaks from intermediate
	// states) and 5 (availability): each is caught by an oracle, not by
	// the invariants or convergence.
	{
		Name:   "annotator-writes-stale-copy",
		Settle: true,
		Bug:    "writes back its cached Deployment with a fresh resourceVersion: reverts the user's scale",
		Caught: "controllers keep the user's intent",
		Spec:   annotatorSpec(writesStaleCopy),
	},
	{
		Name:   "annotator-retries-stale-copy",
		Settle: true,
		Bug:    "on a conflict re-sends its cached Deployment without a resourceVersion: reverts the user's scale (class 2)",
		Caught: "controllers keep the user's intent",
		Spec:   annotatorSpec(retriesStaleCopy),
	},
	{
		Name:   "replicaset-owner-second-write",
		Settle: true,
		Bug:    "creates a pod, then sets its ownerReference in a second write: a crash between leaks the pod",
		Caught: "nothing a controller created leaks",
		Spec:   cluster.ControllerSpec{Name: model.ReplicaSetController, New: newOwnerSecondWrite},
	},
	{
		Name:   "replicaset-counts-terminating",
		Settle: true,
		Bug:    "counts terminating pods as live: no replacement until a deleted pod is gone",
		Caught: "caught-up consistency",
		Spec:   cluster.ControllerSpec{Name: model.ReplicaSetController, New: newCountsTerminating},
	},
	{
		Name:   "endpoints-keeps-terminating",
		Settle: true,
		Bug:    "keeps terminating pods in Endpoints",
		Caught: "caught-up consistency",
		Spec:   cluster.ControllerSpec{Name: model.EndpointsController, New: newTerminatingEndpoints},
	},
	{
		Name:   "deployment-ignores-maxunavailable",
		Settle: true,
		Bug:    "scales old ReplicaSets down before the new pods are ready",
		Caught: "a rollout keeps replicas − maxUnavailable available",
		Spec:   cluster.ControllerSpec{Name: model.DeploymentController, New: newUnavailableBlind},
	},
}

// oracleControls are correct controllers written the way the oracles'
// mutants are, to show that the oracles raise no false alarm on them.
var oracleControls = []Control{
	{
		Name: "annotator-live-copy", Idiom: "changes the live copy it read",
		Spec: annotatorSpec(writesLiveCopy), TimeTravel: true,
	},
	{
		Name: "replicaset-example", Idiom: "the example controller, owner set at create",
		Spec: example.Spec(),
	},
	{
		Name: "endpoints-correct", Idiom: "the mutants' endpoints controller without a bug",
		Spec:       cluster.ControllerSpec{Name: model.EndpointsController, New: func(env cluster.ControllerEnv) controller.Reconciler { return newEndpoints(env) }},
		TimeTravel: true,
	},
}

// Elusive lists real bugs that the property's invariants would flag but
// that its generic action generator does not reach within the tests'
// budget (see the README's mutant table), kept so that a better generator
// can be measured against them.
var Elusive = []Mutant{
	{
		// Class 7 by the time-travel fault, drawn for the controller under
		// test: the example's expectations die with its process, and the
		// old list after the restart does not show its creates. It needs
		// the restart between the creates and their delivery, which the
		// uniform generator draws on one seed in five within 300 checks
		// and the settle generator, whose settles catch every view up,
		// not at all.
		Name:       "replicaset-trusts-stale-list",
		TimeTravel: true,
		Bug:        "the example controller: after a restart it trusts its first list, which a lagging apiserver serves old (class 7)",
		Caught:     "a ReplicaSet never has more pods than it asked for",
		Spec:       example.Spec(),
	},
	{
		// Class 2. The forced write lands now that a failed write no
		// longer stops the reconcile, and the checker flags the reverted
		// spec.replicas; but the conflict needs a scale between the
		// ReplicaSet's delivery and its reconcile, after pods were made,
		// and within 300 checks of 15 actions one seed in five finds it.
		Name:   "replicaset-stale-retry",
		Bug:    "on a conflict re-sends its stale cached ReplicaSet without a resourceVersion, reverting newer writes (class 2)",
		Caught: "only the deployment controller changes a ReplicaSet's spec",
		Spec:   cluster.ControllerSpec{Name: model.ReplicaSetController, New: newStaleRetrier},
	},
	{
		// Needs a node removed (or gone NotReady) while a pod is pending
		// and before the scheduler has seen it: a rare interleaving.
		Name:   "scheduler-unconditional-update",
		Bug:    "binds with a plain pod Update of spec.nodeName: no CAS, no binding subresource",
		Caught: "pods bind only to Ready nodes",
		Spec:   cluster.ControllerSpec{Name: model.Scheduler, New: newUpdateBinder},
	},
	{
		// Needs a Service applied, its Endpoints written, then the same
		// Service deleted, all among the random actions.
		Name:   "endpoints-leaks-on-delete",
		Bug:    "reconciles only Services it can see: a deleted Service's Endpoints stay",
		Caught: "model: not converged",
		Spec:   cluster.ControllerSpec{Name: model.EndpointsController, New: newLeakingEndpoints},
	},
}

// controllerRef is the controller ownerReference of obj, if any.
func controllerRef(obj api.Object) (api.OwnerReference, bool) {
	for _, ref := range api.Meta(obj).OwnerReferences {
		if ref.Controller != nil && *ref.Controller {
			return ref, true
		}
	}
	return api.OwnerReference{}, false
}

// get is a typed cache read.
func get[T api.Object](c *controller.Cache, req controller.Request) (T, bool) {
	var zero T
	if c == nil {
		return zero, false
	}
	obj, ok := c.Get(req.Namespace, req.Name)
	if !ok {
		return zero, false
	}
	t, ok := obj.(T)
	return t, ok
}

func precondition(obj api.Object) api.DeleteOptions {
	rv := api.Meta(obj).ResourceVersion
	return api.DeleteOptions{Preconditions: &api.Preconditions{ResourceVersion: &rv}}
}
