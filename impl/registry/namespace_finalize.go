package registry

import (
	"context"
	"errors"

	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/impl/store"
)

// FinalizeNamespace is an update through the namespace's finalize
// subresource, as upstream's FinalizeREST: it takes spec.finalizers (and
// metadata, as any update) from ns and keeps the stored status. A
// resourceVersion is a precondition (409 Conflict if stale); none is
// last-write-wins. When it leaves a namespace being deleted with neither
// spec.finalizers nor metadata.finalizers, the namespace is removed at
// once, as upstream's ShouldDeleteNamespaceDuringUpdate has it, and the
// answer is the removed namespace (as for Update, see removeAfterUpdate).
func (r *Registry) FinalizeNamespace(ctx context.Context, ns *api.Namespace) (api.Object, error) {
	if ns == nil {
		return nil, api.NewBadRequest("registry: finalize: no namespace given")
	}
	info, _ := api.LookupResource("namespaces")
	in := ownCopy(ctx, ns)
	api.Default(in)
	m := in.GetObjectMeta()
	if _, _, err := objectScope(info.Resource, m.Namespace); err != nil {
		return nil, err
	}
	want, err := parseRV(m.ResourceVersion)
	if err != nil {
		return nil, err
	}
	key := store.Key{Resource: info.Resource, Name: m.Name}
	for {
		old, rev, err := r.getAt(ctx, info, key, want) // read only: see getAt
		if err != nil {
			return nil, err
		}
		if want != 0 && want != rev {
			return nil, api.NewOptimisticLockConflict(info.GroupResource(), m.Name)
		}
		next := mergeUpdate(info, old, in, false) // spec from in, status from old
		if err := api.ValidateUpdate(old, next); err != nil {
			return nil, err
		}
		if err := checkNoNewFinalizers(info, old, next); err != nil {
			return nil, err
		}
		value, err := encode(next)
		if err != nil {
			return nil, err
		}
		if isDryRun(ctx) {
			next.GetObjectMeta().ResourceVersion = formatRV(rev)
			return next, nil
		}
		pending := r.startWrite(key, value, next)
		newRev, err := r.store.Update(ctx, key, value, rev)
		if want == 0 && errors.Is(err, store.ErrConflict) {
			continue
		}
		if err != nil {
			return nil, storeError(ctx, err, info.GroupResource(), m.Name)
		}
		out := r.finishWrite(ctx, pending, store.Object{Key: key, Value: value, Rev: newRev}, next, false)
		if deleteAfterUpdate(old, next) {
			return r.removeAfterUpdate(ctx, info, key, out, newRev)
		}
		return out, nil
	}
}
