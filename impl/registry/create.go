package registry

import (
	"context"
	"errors"

	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/impl/store"
	"k8s.io/apimachinery/pkg/types"
)

// implicitNamespaces may hold objects without a Namespace object, so a
// fresh cluster works before anyone creates namespaces.
var implicitNamespaces = map[string]bool{api.DefaultNamespace: true, "kube-system": true}

// Create stores a new object and returns it as stored.
func (r *Registry) Create(ctx context.Context, obj api.Object) (api.Object, error) {
	if _, err := infoOf(obj); err != nil {
		return nil, err
	}
	out, _, err := r.create(ctx, ownCopy(ctx, obj))
	return out, err
}

// CreateWire is Create that also returns the created object as the wire
// has it (what api.Marshal gives, up to key order), made from the stored
// value or the object kept for it (Registry.wire), so that nothing is
// decoded. It is nil for a dry run. It
// hands obj over whatever ctx says (see HandOver): the apiserver decoded
// it for this one request, so a copy would be waste.
func (r *Registry) CreateWire(ctx context.Context, obj api.Object) (api.Object, []byte, error) {
	out, stored, err := r.create(HandOver(ctx), obj)
	if err != nil || stored.Value == nil {
		return out, nil, err
	}
	info, _ := infoOf(out)
	wire, err := r.wire(info.Resource, *api.TypeOf(out), stored)
	if err != nil {
		return nil, nil, err
	}
	return out, wire, nil
}

// create is Create on an object it owns, returning what it stored too
// (nothing for a dry run).
func (r *Registry) create(ctx context.Context, obj api.Object) (api.Object, store.Object, error) {
	info, err := infoOf(obj)
	if err != nil {
		return nil, store.Object{}, err
	}
	if c, ok := api.LookupCustom(info.Resource); ok && c.Terminating {
		return nil, store.Object{}, api.NewForbidden(info.GroupResource(), api.Meta(obj).Name,
			errors.New("create not allowed while custom resource definition is terminating"))
	}
	api.Default(obj)
	if obj, err = r.mutate(ctx, nil, obj); err != nil {
		return nil, store.Object{}, err
	}
	m := api.Meta(obj)
	if m.ResourceVersion != "" {
		return nil, store.Object{}, api.NewBadRequest("resourceVersion should not be set on objects to be created")
	}
	if err := api.Validate(obj); err != nil {
		return nil, store.Object{}, err
	}
	if err := r.validateAdmission(ctx, nil, obj); err != nil {
		return nil, store.Object{}, err
	}
	if info.Namespaced {
		name := m.Name
		if name == "" {
			name = m.GenerateName // upstream's admission names it so
		}
		if err := r.namespaceOpen(ctx, info.GroupResource(), name, m.Namespace); err != nil {
			return nil, store.Object{}, err
		}
	}
	uid, err := newUID()
	if err != nil {
		return nil, store.Object{}, err
	}
	m.UID = types.UID(uid)
	m.CreationTimestamp = api.NewTime(r.clock())
	m.SelfLink = ""
	m.Generation = 1
	m.DeletionTimestamp, m.DeletionGracePeriodSeconds = nil, nil
	resetStatusOnCreate(obj)
	if svc, ok := obj.(*api.Service); ok {
		r.allocMu.Lock()
		defer r.allocMu.Unlock()
		if err := r.allocateClusterIP(ctx, obj); err != nil {
			return nil, store.Object{}, err
		}
		if err := r.initIPFamilies(svc); err != nil {
			return nil, store.Object{}, err
		}
		if err := r.assignNodePorts(ctx, svc, nil); err != nil {
			return nil, store.Object{}, err
		}
	}

	if m.Name == "" {
		return r.createGenerated(ctx, info, obj)
	}
	value, err := encode(obj)
	if err != nil {
		return nil, store.Object{}, err
	}
	if IsDryRun(ctx) {
		return obj, store.Object{}, r.absent(ctx, info, m.Namespace, m.Name)
	}
	key := storeKey(info, m.Namespace, m.Name)
	pending := r.startWrite(key, value, obj)
	rev, err := r.store.Create(ctx, key, value)
	if err != nil {
		return nil, store.Object{}, storeError(ctx, err, info.GroupResource(), m.Name)
	}
	so := store.Object{Key: key, Value: value, Rev: rev}
	return r.finishWrite(ctx, pending, so, obj, false), so, nil
}

// createGenerated names obj through the store's generateName counter. The
// full name is validated per candidate: a long prefix plus the counter may
// exceed the kind's name length.
func (r *Registry) createGenerated(ctx context.Context, info api.ResourceInfo, obj api.Object) (api.Object, store.Object, error) {
	m := api.Meta(obj)
	// render names obj itself, which create owns: the store calls it once
	// per candidate and commits right after the last call, so obj ends up
	// with the name that was stored, and pending is the last candidate's.
	var pending *pendingWrite
	render := func(name string) ([]byte, error) {
		m.Name = name
		if err := api.Validate(obj); err != nil {
			return nil, err
		}
		value, err := encode(obj)
		if err == nil && !IsDryRun(ctx) {
			r.recent.abandon(pending) // the name before was taken
			key := storeKey(info, m.Namespace, name)
			pending = r.startWrite(key, value, obj)
		}
		return value, err
	}
	if IsDryRun(ctx) {
		name, err := r.store.NextGeneratedName(ctx, storageResource(info), m.Namespace, m.GenerateName)
		if err != nil {
			return nil, store.Object{}, storeError(ctx, err, info.GroupResource(), m.GenerateName)
		}
		if _, err := render(name); err != nil {
			return nil, store.Object{}, err
		}
		m.Name = name
		return obj, store.Object{}, nil
	}
	so, err := r.store.CreateGenerated(ctx, storageResource(info), m.Namespace, m.GenerateName, render)
	if err != nil {
		var se *api.StatusError
		if errors.As(err, &se) {
			return nil, store.Object{}, se
		}
		return nil, store.Object{}, storeError(ctx, err, info.GroupResource(), m.GenerateName)
	}
	return r.finishWrite(ctx, pending, so, obj, false), so, nil
}

// absent is a dry-run create's AlreadyExists check.
func (r *Registry) absent(ctx context.Context, info api.ResourceInfo, namespace, name string) error {
	_, err := r.store.Get(ctx, storeKey(info, namespace, name))
	switch {
	case err == nil:
		return api.NewAlreadyExists(info.GroupResource(), name)
	case errors.Is(err, store.ErrNotFound):
		return nil
	}
	return storeError(ctx, err, info.GroupResource(), name)
}

// namespaceOpen admits objects into implicit namespaces and into those
// that exist as Namespace objects and are not in phase Terminating: a
// create in a Terminating namespace is 403 Forbidden, as upstream's
// NamespaceLifecycle admission answers (it too reads the phase).
func (r *Registry) namespaceOpen(ctx context.Context, gr api.GroupResource, name, namespace string) error {
	if implicitNamespaces[namespace] {
		return nil
	}
	so, err := r.store.Get(ctx, store.Key{Resource: "namespaces", Name: namespace})
	if errors.Is(err, store.ErrNotFound) {
		return api.NewNotFound(api.GroupResource{Resource: "namespaces"}, namespace)
	}
	if err != nil {
		return storeError(ctx, err, api.GroupResource{Resource: "namespaces"}, namespace)
	}
	ns, err := decode("namespaces", so.Value, so.Rev)
	if err != nil {
		return err
	}
	if ns.(*api.Namespace).Status.Phase == api.NamespaceTerminating {
		return namespaceTerminating(gr, name, namespace)
	}
	return nil
}
