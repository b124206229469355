package registry

import (
	"context"
	"errors"

	"github.com/converge-dev/converge/impl/api"
)

// Deleting a namespace deletes what it holds first, as upstream's
// namespace controller does before it lets the namespace go. converge does
// it synchronously, and at once (no grace): no component acts outside the
// default namespace, which may not be deleted, so there is no kubelet to
// wait for.

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
