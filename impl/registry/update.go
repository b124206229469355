package registry

import (
	"context"
	"errors"
	"maps"

	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/impl/store"
)

// Update replaces an object's spec and metadata; see the package doc for
// what it keeps from the stored object.
func (r *Registry) Update(ctx context.Context, obj api.Object) (api.Object, error) {
	return r.update(ctx, obj, "")
}

// UpdateStatus replaces an object's status through the status subresource.
func (r *Registry) UpdateStatus(ctx context.Context, obj api.Object) (api.Object, error) {
	return r.update(ctx, obj, "status")
}

// FinalizeNamespace is an update through the namespace's finalize
// subresource, as upstream's FinalizeREST: it takes spec.finalizers (and
// metadata, as any update) from ns and keeps the stored status, where a
// plain update keeps the stored spec.finalizers. When it leaves a
// namespace being deleted with neither spec.finalizers nor
// metadata.finalizers, the namespace is removed at once, as upstream's
// ShouldDeleteNamespaceDuringUpdate has it (see removeAfterUpdate).
func (r *Registry) FinalizeNamespace(ctx context.Context, ns *api.Namespace) (api.Object, error) {
	if ns == nil {
		return nil, api.NewBadRequest("registry: finalize: no namespace given")
	}
	return r.update(ctx, ns, "finalize")
}

// update is a read-modify-write with a CAS on the revision read. With no
// resourceVersion precondition a lost race is retried from a fresh read, so
// the write is last-write-wins yet never loses a concurrent status (or spec)
// write it was meant to keep. subresource is "", "status" or "finalize".
func (r *Registry) update(ctx context.Context, in api.Object, subresource string) (api.Object, error) {
	info, err := infoOf(in)
	if err != nil {
		return nil, err
	}
	status := subresource == "status"
	if status && !hasStatusSubresource(info) {
		return nil, api.NewMethodNotSupported(info.GroupResource(), "update status")
	}
	in = ownCopy(ctx, in)
	api.Default(in)
	m := api.Meta(in)
	if _, _, err := objectScope(info.Resource, m.Namespace); err != nil {
		return nil, err
	}
	want, err := parseRV(m.ResourceVersion)
	if err != nil {
		return nil, err
	}
	key := storeKey(info, m.Namespace, m.Name)
	if _, ok := in.(*api.Service); ok {
		r.allocMu.Lock() // node ports are checked against the other Services
		defer r.allocMu.Unlock()
	}
	for {
		old, rev, err := r.getAt(ctx, info, key, want) // read only: see getAt
		if err != nil {
			return nil, err
		}
		if want != 0 && want != rev {
			return nil, api.NewOptimisticLockConflict(info.GroupResource(), m.Name)
		}
		next := mergeUpdate(info, old, in, status)
		if subresource == "" {
			if next, err = r.mutate(ctx, old, next); err != nil {
				return nil, err
			}
		}
		if fn := managedFieldsOf(ctx); fn != nil && subresource != "finalize" {
			api.Meta(next).ManagedFields = fn(old, in)
		}
		keepClusterIP(old, next)
		dropTypeDependentFields(old, next)
		if subresource != "finalize" {
			keepNamespaceFinalizers(old, next)
		}
		if s, ok := next.(*api.Service); ok {
			if err := r.assignNodePorts(ctx, s, old.(*api.Service)); err != nil {
				return nil, err
			}
		}
		validate := api.ValidateUpdate
		if status {
			validate = api.ValidateStatusUpdate
		}
		if err := validate(old, next); err != nil {
			return nil, err
		}
		if subresource == "" {
			if err := r.validateAdmission(ctx, old, next); err != nil {
				return nil, err
			}
		}
		if err := checkNoNewFinalizers(info, old, next); err != nil {
			return nil, err
		}
		if deleteAfterUpdate(old, next) {
			// Its last finalizer goes: the object is deleted as it is
			// stored, and the update is not written (upstream's
			// errEmptiedFinalizers): watchers see one DELETED event. A
			// write that raced it has the update judged again; an object
			// already gone raced another removal, which upstream ignores.
			// As upstream, the answer is the update's object at the
			// revision it was judged against.
			_, err := r.remove(ctx, key, old, rev)
			if errors.Is(err, errRetry) {
				continue
			}
			if err != nil && !errors.Is(err, store.ErrNotFound) {
				return nil, storeError(ctx, err, info.GroupResource(), m.Name)
			}
			api.Meta(next).ResourceVersion = formatRV(rev)
			return answer(ctx, next, status), nil
		}
		value, err := encode(next)
		if err != nil {
			return nil, err
		}
		if unchanged(ctx, old, value) {
			return answer(ctx, old, true), nil
		}
		if IsDryRun(ctx) {
			api.Meta(next).ResourceVersion = formatRV(rev)
			return answer(ctx, next, status), nil
		}
		pending := r.startWrite(key, value, next)
		newRev, err := r.store.Update(ctx, key, value, rev)
		if want == 0 && errors.Is(err, store.ErrConflict) {
			continue
		}
		if err != nil {
			return nil, storeError(ctx, err, info.GroupResource(), m.Name)
		}
		return r.finishWrite(ctx, pending, store.Object{Key: key, Value: value, Rev: newRev}, next, status), nil
	}
}

// getAt is get, served from the recent values when they hold key at
// revision want (0: no precondition, so read). Its object may be the
// recent values' own: the caller must not change it.
func (r *Registry) getAt(ctx context.Context, info api.ResourceInfo, key store.Key, want int64) (api.Object, int64, error) {
	if so, ok := r.recent.at(key, want); ok {
		obj, err := r.recent.view(info.Resource, so)
		return obj, so.Rev, err
	}
	return r.get(ctx, info, key.Namespace, key.Name)
}

// mergeUpdate builds the object to store from the stored one and the
// client's. It leaves both untouched; a status update's result shares in's
// status and, but for a Service's, the rest with old (see shallowCopy).
func mergeUpdate(info api.ResourceInfo, old, in api.Object, status bool) api.Object {
	if status {
		next := shallowCopy(old)
		if _, ok := old.(*api.Service); ok {
			next = api.DeepCopy(old) // node port assignment writes into its spec
		}
		// in is update's own, read again only by a retry's merge, which
		// changes nothing: next can share its status.
		setStatus(next, in)
		if d, ok := next.(*api.Deployment); ok {
			// Upstream's deployment status strategy resets only the spec
			// and labels: the deployment controller writes the revision
			// annotation with the status.
			d.Annotations = maps.Clone(api.Meta(in).Annotations)
		}
		return next
	}
	next := api.DeepCopy(in)
	nm, om := api.Meta(next), api.Meta(old)
	// uid and creationTimestamp left empty mean "not sent"; sent ones are
	// checked against the stored ones by ValidateUpdate.
	if nm.UID == "" {
		nm.UID = om.UID
	}
	if nm.CreationTimestamp.IsZero() {
		nm.CreationTimestamp = om.CreationTimestamp
	}
	nm.GenerateName = om.GenerateName
	nm.SelfLink = ""
	nm.DeletionTimestamp = api.DeepCopy(om.DeletionTimestamp)
	nm.DeletionGracePeriodSeconds = api.DeepCopy(om.DeletionGracePeriodSeconds)
	nm.Generation = om.Generation
	if specChanged(old, next) {
		nm.Generation++
	}
	if hasStatusSubresource(info) {
		copyStatus(next, old)
	}
	return next
}
