package registry

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/impl/store"
)

// Delete deletes an object, or only marks it when it is a pod a kubelet may
// be running, and returns the deleted or marked object.
func (r *Registry) Delete(ctx context.Context, resource, namespace, name string, opts api.DeleteOptions) (api.Object, error) {
	info, namespace, err := objectScope(resource, namespace)
	if err != nil {
		return nil, err
	}
	if err := checkDeleteOptions(opts); err != nil {
		return nil, err
	}
	if len(opts.DryRun) > 0 {
		ctx = WithDryRun(ctx) // checkDeleteOptions admitted only "All"
	}
	if info.Resource == "namespaces" {
		if err := checkNamespaceDelete(name); err != nil {
			return nil, err
		}
	}
	var wantRV int64
	var wantUID string
	if p := opts.Preconditions; p != nil {
		if p.ResourceVersion != nil {
			if wantRV, err = parseRV(*p.ResourceVersion); err != nil {
				return nil, err
			}
		}
		if p.UID != nil {
			wantUID = string(*p.UID)
		}
	}
	gr := info.GroupResource()
	key := storeKey(info, namespace, name)
	force := opts.GracePeriodSeconds != nil && *opts.GracePeriodSeconds == 0
	for {
		old, rev, err := r.get(ctx, info, namespace, name)
		if err != nil {
			return nil, err
		}
		m := api.Meta(old)
		if wantUID != "" && string(m.UID) != wantUID {
			return nil, preconditionFailed(gr, name, "UID", wantUID, string(m.UID))
		}
		if wantRV != 0 && wantRV != rev {
			return nil, preconditionFailed(gr, name, "ResourceVersion", formatRV(wantRV), formatRV(rev))
		}
		out, err := r.deleteOnce(ctx, key, old, rev, opts, force)
		if errors.Is(err, errRetry) && wantRV == 0 {
			continue
		}
		if errors.Is(err, errRetry) {
			return nil, api.NewOptimisticLockConflict(gr, name)
		}
		if err != nil {
			return nil, storeError(ctx, err, gr, name)
		}
		return out, nil
	}
}

// deleteOnce is one attempt of Delete on old, read at rev: it marks or
// removes old, or leaves it as it is; errRetry if a write raced it.
func (r *Registry) deleteOnce(ctx context.Context, key store.Key, old api.Object, rev int64, opts api.DeleteOptions, force bool) (api.Object, error) {
	if key.Resource == "namespaces" {
		if out, done, err := r.deleteNamespace(ctx, key, old, rev, opts); done || err != nil {
			return out, err
		}
	}
	m := api.Meta(old)
	// A graceful deletion under way is left to its kubelet, finalizers
	// and all, as upstream does.
	if gracePending(m, opts.GracePeriodSeconds) {
		return old, nil
	}
	graceful, gerr := r.needsGracefulDelete(ctx, old)
	if gerr != nil {
		return nil, gerr
	}
	// A first delete starts a grace period; a later one only shortens
	// one that is left (gracePending let through only a shorter one).
	graceful = graceful && !force
	if g := m.DeletionGracePeriodSeconds; m.DeletionTimestamp != nil && (g == nil || *g == 0) {
		graceful = false
	}
	finalizers := deletionFinalizers(m.Finalizers, opts)
	if key.Resource == crdResource && m.DeletionTimestamp == nil && !slices.Contains(finalizers, CRDCleanupFinalizer) {
		// Upstream's CRD storage adds the cleanup finalizer on delete, so
		// that the definition outlives its custom resources.
		finalizers = append(finalizers, CRDCleanupFinalizer)
	}
	if len(finalizers) > 0 || graceful {
		return r.markDeleting(ctx, key, old, rev, opts.GracePeriodSeconds, graceful, finalizers)
	}
	return r.remove(ctx, key, old, rev)
}

// markDeleting keeps an object its finalizers or its kubelet hold: it sets
// the deletion timestamp and grace period (the pod's grace when graceful,
// else 0) if unset, shortens a grace period to 0 when forced, and stores
// the finalizers the delete leaves. A delete that changes nothing writes
// nothing and returns the object as stored.
func (r *Registry) markDeleting(ctx context.Context, key store.Key, old api.Object, rev int64, grace *int64, graceful bool, finalizers []string) (api.Object, error) {
	m := api.Meta(old)
	changed := !slices.Equal(m.Finalizers, finalizers)
	m.Finalizers = finalizers
	now := api.NewTime(r.clock())
	switch {
	case m.DeletionTimestamp == nil:
		secs := int64(0)
		if graceful {
			secs = int64(api.DefaultTerminationGracePeriodSeconds)
			if grace != nil {
				secs = *grace
			} else if p, ok := old.(*api.Pod); ok && p.Spec.TerminationGracePeriodSeconds != nil {
				secs = *p.Spec.TerminationGracePeriodSeconds
			}
		}
		m.DeletionTimestamp, m.DeletionGracePeriodSeconds = &now, &secs
		changed = true
	case grace != nil && m.DeletionGracePeriodSeconds != nil && *grace < *m.DeletionGracePeriodSeconds:
		secs := *grace
		m.DeletionTimestamp, m.DeletionGracePeriodSeconds = &now, &secs
		changed = true
	}
	if !changed {
		return old, nil
	}
	return r.rewrite(ctx, key, old, rev)
}

// rewrite stores obj, changed in place from the stored value at rev, with
// a CAS on rev (errRetry if it lost).
func (r *Registry) rewrite(ctx context.Context, key store.Key, old api.Object, rev int64) (api.Object, error) {
	value, err := encode(old)
	if err != nil {
		return nil, err
	}
	if IsDryRun(ctx) {
		return old, nil
	}
	pending := r.startWrite(key, value, old)
	newRev, err := r.store.Update(ctx, key, value, rev)
	if errors.Is(err, store.ErrConflict) {
		return nil, errRetry
	}
	if err != nil {
		return nil, err
	}
	return r.finishWrite(ctx, pending, store.Object{Key: key, Value: value, Rev: newRev}, old, false), nil
}

// remove deletes for good with a CAS on the revision read, and returns the
// last value at the deletion's revision, as a DELETED watch event has it.
func (r *Registry) remove(ctx context.Context, key store.Key, old api.Object, rev int64) (api.Object, error) {
	if IsDryRun(ctx) {
		return old, nil
	}
	r.recent.forget(key)
	so, err := r.store.Delete(ctx, key, rev)
	if errors.Is(err, store.ErrConflict) {
		return nil, errRetry
	}
	if err != nil {
		return nil, err
	}
	return decode(key.Resource, so.Value, so.Rev)
}

// needsGracefulDelete mirrors the model: a pod bound to a node that exists
// may be running there, so its kubelet must stop it and delete it.
func (r *Registry) needsGracefulDelete(ctx context.Context, obj api.Object) (bool, error) {
	p, ok := obj.(*api.Pod)
	if !ok || p.Spec.NodeName == "" {
		return false, nil
	}
	_, err := r.store.Get(ctx, store.Key{Resource: "nodes", Name: p.Spec.NodeName})
	if errors.Is(err, store.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, storeError(ctx, err, api.GroupResource{Resource: "nodes"}, p.Spec.NodeName)
	}
	return true, nil
}

// checkDeleteOptions rejects what the registry does not implement rather
// than silently doing something else.
func checkDeleteOptions(o api.DeleteOptions) error {
	if o.GracePeriodSeconds != nil && *o.GracePeriodSeconds < 0 {
		return api.NewBadRequest(fmt.Sprintf("gracePeriodSeconds must not be negative, got %d", *o.GracePeriodSeconds))
	}
	if _, err := CheckDryRun(o.DryRun); err != nil {
		return err
	}
	if o.PropagationPolicy == nil {
		return nil
	}
	switch p := *o.PropagationPolicy; p {
	case api.DeletePropagationBackground, api.DeletePropagationOrphan, api.DeletePropagationForeground:
		return nil
	default:
		return api.NewBadRequest(fmt.Sprintf("unknown propagationPolicy %q: must be Orphan, Background or Foreground", p))
	}
}
