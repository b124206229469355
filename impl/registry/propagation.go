package registry

import (
	"context"

	"github.com/converge-dev/converge/impl/api"
)

// dependentKinds are the resources that carry owner references in
// converge's control plane.
var dependentKinds = []string{"replicasets", "pods"}

// policyOf reads a delete's propagation policy (Background when unset;
// orphanDependents=true is the old spelling of Orphan).
func policyOf(o api.DeleteOptions) api.DeletionPropagation {
	if o.PropagationPolicy != nil {
		return *o.PropagationPolicy
	}
	if o.OrphanDependents != nil && *o.OrphanDependents {
		return api.DeletePropagationOrphan
	}
	return api.DeletePropagationBackground
}

// propagate runs before an owner's own delete:
//   - Orphan removes the owner's references from its dependents, so the
//     garbage collector leaves them alone;
//   - Foreground deletes the dependents first, depth first, so the owner
//     goes last (Kubernetes marks the owner and lets the garbage collector
//     finish; converge does the same walk synchronously; terminating pods
//     finish with their kubelets);
//   - Background does nothing here: the garbage collector deletes the
//     dependents once the owner is gone.
func (r *Registry) propagate(ctx context.Context, policy api.DeletionPropagation, owner api.Object) error {
	if policy != api.DeletePropagationOrphan && policy != api.DeletePropagationForeground {
		return nil
	}
	m := owner.GetObjectMeta()
	for _, resource := range dependentKinds {
		list, err := r.List(ctx, resource, m.Namespace, ListOptions{})
		if err != nil {
			return err
		}
		for _, dep := range list.GetItems() {
			dm := dep.GetObjectMeta()
			if !ownedBy(dm, m.UID) {
				continue
			}
			if policy == api.DeletePropagationOrphan {
				err = r.orphan(ctx, dep, m.UID)
			} else {
				fg := api.DeletePropagationForeground
				_, err = r.Delete(ctx, resource, dm.Namespace, dm.Name, api.DeleteOptions{PropagationPolicy: &fg})
			}
			if err != nil && !api.IsNotFound(err) {
				return err
			}
		}
	}
	return nil
}

func ownedBy(m *api.ObjectMeta, uid string) bool {
	for _, ref := range m.OwnerReferences {
		if ref.UID == uid {
			return true
		}
	}
	return false
}

// orphan removes one owner reference, retrying on conflicts.
func (r *Registry) orphan(ctx context.Context, dep api.Object, uid string) error {
	for {
		dm := dep.GetObjectMeta()
		var refs []api.OwnerReference
		for _, ref := range dm.OwnerReferences {
			if ref.UID != uid {
				refs = append(refs, ref)
			}
		}
		dm.OwnerReferences = refs
		_, err := r.Update(ctx, dep)
		if !api.IsConflict(err) {
			return err
		}
		ri, _ := api.ResourceFor(dep)
		if dep, err = r.Get(ctx, ri.Resource, dm.Namespace, dm.Name); err != nil {
			return err
		}
	}
}
