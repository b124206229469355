package registry

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/impl/store"
)

// A namespace's lifecycle is upstream's (pkg/registry/core/namespace):
// the registry never empties a namespace. A create gives it the
// "kubernetes" finalizer in spec.finalizers; a first delete only marks it
// (deletionTimestamp, phase Terminating), and creates into it are then
// refused; the namespace controller, a component, deletes its content and
// then takes "kubernetes" off through the finalize subresource
// (namespace_finalize.go), which removes the namespace once neither
// spec.finalizers nor metadata.finalizers holds it.

// FinalizerKubernetes is the spec.finalizers entry every namespace is
// created with: the namespace controller's, as upstream names it.
const FinalizerKubernetes = "kubernetes"

// causeNamespaceTerminating is the StatusCause reason of a create refused
// because its namespace is being deleted (upstream's
// v1.NamespaceTerminatingCause).
const causeNamespaceTerminating api.CauseType = "NamespaceTerminating"

// checkNamespaceDelete refuses to delete a namespace the cluster needs.
func checkNamespaceDelete(name string) error {
	if implicitNamespaces[name] || name == "kube-public" { // upstream's NamespaceLifecycle's immortal ones
		return api.NewForbidden(api.GroupResource{Resource: "namespaces"}, name, errors.New("this namespace may not be deleted"))
	}
	return nil
}

// prepareNamespace is upstream's namespace PrepareForCreate: phase Active,
// and the "kubernetes" finalizer added if the client did not list it.
func prepareNamespace(ns *api.Namespace) {
	ns.Status = api.NamespaceStatus{Phase: api.NamespaceActive}
	if !slices.Contains(ns.Spec.Finalizers, FinalizerKubernetes) {
		ns.Spec.Finalizers = append(ns.Spec.Finalizers, FinalizerKubernetes)
	}
}

// deleteNamespace is upstream's namespace REST Delete, before it hands
// over to the generic delete: a first delete only marks the namespace
// (deletionTimestamp, no grace period, phase Terminating, and the garbage
// collector's finalizers as the propagation policy asks), whatever its
// finalizers; a later one leaves it as it is while spec.finalizers holds
// it. done is false when the generic delete is to go on: the namespace is
// marked and spec.finalizers is empty.
func (r *Registry) deleteNamespace(ctx context.Context, key store.Key, old api.Object, rev int64, opts api.DeleteOptions) (out api.Object, done bool, err error) {
	ns := old.(*api.Namespace)
	if ns.DeletionTimestamp != nil {
		return old, len(ns.Spec.Finalizers) > 0, nil
	}
	now := api.NewTime(r.clock())
	ns.DeletionTimestamp = &now
	ns.Status.Phase = api.NamespaceTerminating
	ns.Finalizers = deletionFinalizers(ns.Finalizers, opts)
	out, err = r.rewrite(ctx, key, old, rev)
	return out, true, err
}

// namespaceTerminating is upstream's NamespaceLifecycle admission answer
// to a create into a Terminating namespace: 403 Forbidden, with a cause
// that names the namespace. name is the object's name, or its
// generateName before one is generated.
func namespaceTerminating(gr api.GroupResource, name, namespace string) error {
	err := api.NewForbidden(gr, name, fmt.Errorf("unable to create new content in namespace %s because it is being terminated", namespace))
	err.Status.Details.Causes = append(err.Status.Details.Causes, api.StatusCause{
		Type:    causeNamespaceTerminating,
		Message: fmt.Sprintf("namespace %s is being terminated", namespace),
		Field:   "metadata.namespace",
	})
	return err
}

// namespaceHeld tells whether obj is a namespace its spec.finalizers still
// hold: upstream's ShouldDeleteNamespaceDuringUpdate keeps it through an
// update that takes its last metadata finalizer.
func namespaceHeld(obj api.Object) bool {
	ns, ok := obj.(*api.Namespace)
	return ok && len(ns.Spec.Finalizers) > 0
}

// keepNamespaceFinalizers is upstream's namespace PrepareForUpdate: an
// update (not finalize) keeps the stored spec.finalizers.
func keepNamespaceFinalizers(old, next api.Object) {
	if ns, ok := next.(*api.Namespace); ok {
		ns.Spec.Finalizers = slices.Clone(old.(*api.Namespace).Spec.Finalizers)
	}
}
