// Package broker is an operator for a message broker, written the way an
// operator author writes one: a Broker owns a ConfigMap (its rendered
// configuration), a Service and a Deployment whose pods restart when the
// configuration changes (a config hash on the pod template). Each Broker
// is also listed in its namespace's registry, a ConfigMap shared by all
// Brokers there, so a finalizer removes the entry on delete. A Broker can
// be paused. The seeded bugs are in bugs.go.
package broker

import (
	"context"
	"errors"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/record"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/log"

	mqv1 "github.com/converge-dev/converge/examples/foreign/broker/api/v1"
)

// Finalizer guards the registry entry.
const Finalizer = "mq.probe.example.com/deregister"

// Reconciler reconciles Brokers.
type Reconciler struct {
	client.Client
	Scheme   *runtime.Scheme
	Recorder record.EventRecorder
	// APIReader reads past the cache (mgr.GetAPIReader()): deregister
	// decides from it that the entry is gone. Nil reads the cache.
	APIReader client.Reader
}

// errRetry is a write that lost a race (a conflict, or a create of what
// the cache has not shown yet): the reconcile retries shortly, level-based.
var errRetry = errors.New("broker: retry")

// Reconcile drives one Broker toward its spec.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	res, err := r.reconcile(ctx, req)
	if errors.Is(err, errRetry) || apierrors.IsConflict(err) || apierrors.IsAlreadyExists(err) {
		return ctrl.Result{RequeueAfter: time.Second}, nil
	}
	return res, err
}

func (r *Reconciler) reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var b mqv1.Broker
	if err := r.Get(ctx, req.NamespacedName, &b); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	// BugPausedBlocksDelete: the pause check comes before the deletion
	// branch (xlab-uiuc/acto#62).
	if BugPausedBlocksDelete && b.Spec.Paused {
		return ctrl.Result{}, nil
	}
	if !b.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, r.finalize(ctx, &b)
	}
	if !controllerutil.ContainsFinalizer(&b, Finalizer) {
		if err := r.patchFinalizer(ctx, &b, controllerutil.AddFinalizer); err != nil {
			return ctrl.Result{}, err
		}
	}
	if err := r.register(ctx, &b); err != nil {
		return ctrl.Result{}, err
	}
	// BugSkipWhenObserved: children only when the generation moved
	// (operator-sdk#2636; Sieve unobserved state).
	skip := BugSkipWhenObserved && b.Status.ObservedGeneration == b.Generation
	invalid := ""
	if !b.Spec.Paused && !skip {
		err := r.reconcileChildren(ctx, &b)
		switch {
		case apierrors.IsInvalid(err):
			// The spec makes a child the apiserver refuses (the image is
			// free-form): retrying cannot help until the spec changes, so
			// the status says why instead.
			invalid = err.Error()
		case err != nil:
			return ctrl.Result{}, err
		}
	}
	return ctrl.Result{}, r.updateStatus(ctx, &b, invalid)
}

// finalize stops the broker, removes its registry entry, then lets the
// Broker go. The Deployment goes first so that no pod serves a broker the
// registry no longer lists; its ownerReference would remove it too, later.
func (r *Reconciler) finalize(ctx context.Context, b *mqv1.Broker) error {
	if !controllerutil.ContainsFinalizer(b, Finalizer) {
		return nil
	}
	// BugFinalizerFirst: the finalizer goes before the cleanup (Sieve
	// intermediate state; ISSTA'24 resource cleanup).
	if BugFinalizerFirst {
		controllerutil.RemoveFinalizer(b, Finalizer)
		if err := r.Update(ctx, b); err != nil {
			return err
		}
	}
	if err := r.stop(ctx, b); err != nil {
		return err
	}
	if err := r.deregister(ctx, b); err != nil {
		return err
	}
	if BugFinalizerFirst {
		return nil
	}
	return r.patchFinalizer(ctx, b, controllerutil.RemoveFinalizer)
}

// patchFinalizer adds or removes the finalizer by a merge patch of the
// finalizers alone, conditioned on the version read. An Update would send
// the whole spec back through the Go type, whose omitempty drops a value
// the user set to its zero (image: ""), and the apiserver would then
// default it: the operator would rewrite its user's spec (the spec is the
// user's; a controller writes status). flux-iac/tofu-controller#1652,
// k8snetworkplumbingwg/sriov-network-operator#878.
func (r *Reconciler) patchFinalizer(ctx context.Context, b *mqv1.Broker, change func(client.Object, string) bool) error {
	patch := client.MergeFromWithOptions(b.DeepCopy(), client.MergeFromWithOptimisticLock{})
	change(b, Finalizer)
	return r.Patch(ctx, b, patch)
}

// stop deletes the Deployment this Broker controls, and only that one: a
// Broker of the same name made since has another uid.
func (r *Reconciler) stop(ctx context.Context, b *mqv1.Broker) error {
	// BugDeleteByName: delete whatever Deployment has the name
	// (rabbitmq/cluster-operator#648, cass-operator#412, zookeeper-operator#312).
	if BugDeleteByName {
		dep := &appsv1.Deployment{}
		dep.Name, dep.Namespace = b.Name, b.Namespace
		return client.IgnoreNotFound(r.Delete(ctx, dep))
	}
	var dep appsv1.Deployment
	if err := r.Get(ctx, client.ObjectKey{Namespace: b.Namespace, Name: b.Name}, &dep); err != nil {
		return client.IgnoreNotFound(err)
	}
	if !isControlledBy(&dep, b) {
		return nil
	}
	uid := dep.UID
	return client.IgnoreNotFound(r.Delete(ctx, &dep, client.Preconditions{UID: &uid}))
}

func isControlledBy(obj client.Object, b *mqv1.Broker) bool {
	ref := metav1.GetControllerOf(obj)
	return ref != nil && ref.UID == b.UID
}

// SetupWithManager watches Brokers and what they own.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	bld := ctrl.NewControllerManagedBy(mgr).
		For(&mqv1.Broker{}).
		Owns(&corev1.ConfigMap{}).
		Owns(&corev1.Service{})
	// BugNoDeploymentWatch: the owned Deployment is not watched
	// (cassandra-operator#40, redis-operator#988).
	if !BugNoDeploymentWatch {
		bld = bld.Owns(&appsv1.Deployment{})
	}
	return bld.Named("broker").Complete(r)
}

// logf logs through the reconcile's logger.
func logf(ctx context.Context, msg string, kv ...any) { log.FromContext(ctx).Info(msg, kv...) }
