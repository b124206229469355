package registry

import (
	"context"
	"errors"

	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/impl/store"
)

// Deleting a namespace deletes what it holds first, as upstream's
// namespace controller does before it lets the namespace go. converge does
// it synchronously, and at once (no grace): no component acts outside the
// default namespace, which may not be deleted, so there is no kubelet to
// wait for. What finalizers hold stays, and so does the namespace, marked
// Terminating (creates in it are refused), until the last of it is
// removed: that removal takes the namespace too.

// checkNamespaceDelete refuses to delete a namespace the cluster needs.
func checkNamespaceDelete(name string) error {
	if implicitNamespaces[name] {
		return api.NewForbidden(api.GroupResource{Resource: "namespaces"}, name, errors.New("this namespace may not be deleted"))
	}
	return nil
}

// emptyNamespace deletes every object of every namespaced kind in ns.
func (r *Registry) emptyNamespace(ctx context.Context, ns string) error {
	now := int64(0)
	for _, info := range api.Resources() {
		if !info.Namespaced || info.ListKind == "" {
			continue
		}
		list, err := r.List(ctx, info.Resource, ns, ListOptions{})
		if err != nil {
			return err
		}
		for _, o := range list.GetItems() {
			m := o.GetObjectMeta()
			_, err := r.Delete(ctx, info.Resource, ns, m.Name, api.DeleteOptions{GracePeriodSeconds: &now})
			if err != nil && !api.IsNotFound(err) {
				return err
			}
		}
	}
	return nil
}

// namespaceHolds tells whether anything is left in ns.
func (r *Registry) namespaceHolds(ctx context.Context, ns string) (bool, error) {
	for _, info := range api.Resources() {
		if !info.Namespaced || info.ListKind == "" {
			continue
		}
		list, err := r.List(ctx, info.Resource, ns, ListOptions{Limit: 1})
		if err != nil {
			return false, err
		}
		if len(list.GetItems()) > 0 {
			return true, nil
		}
	}
	return false, nil
}

// markTerminating keeps a namespace whose contents finalizers hold: it
// gets a deletion timestamp and phase Terminating.
func (r *Registry) markTerminating(ctx context.Context, key store.Key, old api.Object, rev int64) (api.Object, error) {
	ns := old.(*api.Namespace)
	if ns.DeletionTimestamp != nil {
		return old, nil
	}
	now, zero := api.NewTime(r.clock()), int64(0)
	ns.DeletionTimestamp, ns.DeletionGracePeriodSeconds = &now, &zero
	ns.Status.Phase = "Terminating"
	return r.rewrite(ctx, key, old, rev)
}

// finishNamespace removes a Terminating namespace once nothing is left in
// it: the namespace controller's last step, taken when the last object
// held by finalizers goes.
func (r *Registry) finishNamespace(ctx context.Context, ns string) {
	if ns == "" || implicitNamespaces[ns] || isDryRun(ctx) {
		return
	}
	info, _ := api.LookupResource("namespaces")
	for {
		old, rev, err := r.get(ctx, info, "", ns)
		if err != nil || old.GetObjectMeta().DeletionTimestamp == nil {
			return
		}
		if left, err := r.namespaceHolds(ctx, ns); err != nil || left {
			return
		}
		if _, err := r.remove(ctx, store.Key{Resource: "namespaces", Name: ns}, old, rev); !errors.Is(err, errRetry) {
			return
		}
	}
}
