package registry

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/converge-dev/converge/impl/api"
)

// The garbage collector's work where a custom resource is involved, as an
// owner or as a dependent. The model's garbage collector, which runs in
// every driver, watches the model's kinds only: custom resources are in
// the model's snapshots (model.Custom), but no component's view holds
// them, so this pass does that work, as upstream's garbage collector does
// for every kind:
//   - a dependent whose owners (by uid) are all gone, one of them a custom
//     resource or the dependent itself one, is deleted in the background;
//   - a custom resource being deleted with the foregroundDeletion
//     finalizer has its dependents deleted, and loses the finalizer once
//     they are gone;
//   - one being deleted with the orphan finalizer has its dependents'
//     references to it removed, then the finalizer.
// It costs nothing while no CRD is served.

// customGCPeriod is how often RunCustomGC looks at the custom resources;
// customGCFullPeriod bounds how long a pass over every resource waits when
// they look the same.
const (
	customGCPeriod     = 500 * time.Millisecond
	customGCFullPeriod = 10 * time.Second
)

// RunCustomGC runs CollectCustomGarbage until ctx ends (RunCRDs runs it).
// A pass lists every resource, so it runs when the custom resources
// changed (one went, or started going) or are being deleted with the
// garbage collector's finalizers, and every customGCFullPeriod besides,
// for the rest (a custom resource whose built-in owner went): a control
// plane of ten thousand pods does not list them twice a second.
func (r *Registry) RunCustomGC(ctx context.Context) {
	t := time.NewTicker(customGCPeriod)
	defer t.Stop()
	var last string
	var lastFull time.Time
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		state, pending, err := r.customState(ctx)
		if err != nil || state == "" || (state == last && !pending && time.Since(lastFull) < customGCFullPeriod) {
			continue
		}
		if r.CollectCustomGarbage(ctx) == nil { // a failed pass is tried again on the next tick
			last, lastFull = state, time.Now()
		}
	}
}

// customState sums up the custom resources as the garbage collector sees
// them: "" when none is served; pending when one is being deleted with a
// garbage collector's finalizer.
func (r *Registry) customState(ctx context.Context) (state string, pending bool, err error) {
	var b strings.Builder
	for _, info := range api.Resources() {
		if _, ok := api.LookupCustom(info.Resource); !ok {
			continue
		}
		l, err := r.List(ctx, info.Resource, "", ListOptions{})
		if err != nil {
			return "", false, err
		}
		b.WriteString(info.Resource + ";")
		for _, o := range l.GetItems() {
			m := o.GetObjectMeta()
			deleting := m.DeletionTimestamp != nil
			pending = pending || deleting && (slices.Contains(m.Finalizers, finalizerOrphan) || slices.Contains(m.Finalizers, finalizerForeground))
			fmt.Fprintf(&b, "%s:%t,", m.UID, deleting)
		}
	}
	return b.String(), pending, nil
}

// gcObject is one live object with the resource it was listed from.
type gcObject struct {
	resource string
	obj      api.Object
}

// CollectCustomGarbage makes one pass.
func (r *Registry) CollectCustomGarbage(ctx context.Context) error {
	return r.CollectCustomGarbageNoting(ctx, nil)
}

// CollectCustomGarbageNoting makes one pass and tells wrote, if set, about
// each write it made: the object as stored (for a delete, at the
// deletion's revision), so that a stepped harness knows which informers
// have an event coming.
func (r *Registry) CollectCustomGarbageNoting(ctx context.Context, wrote func(resource string, obj api.Object)) error {
	p := gcPass{r: r, wrote: wrote}
	var all []gcObject
	live := map[string]gcObject{} // uid -> object
	anyCustom := false
	for _, info := range api.Resources() {
		if _, ok := api.LookupCustom(info.Resource); ok {
			anyCustom = true
		}
	}
	if !anyCustom {
		return nil
	}
	for _, info := range api.Resources() {
		if info.ListKind == "" || !slices.Contains(info.Verbs, "list") {
			continue
		}
		l, err := r.List(ctx, info.Resource, "", ListOptions{})
		if err != nil {
			return err
		}
		for _, o := range l.GetItems() {
			g := gcObject{info.Resource, o}
			all = append(all, g)
			live[o.GetObjectMeta().UID] = g
		}
	}
	dependents := map[string][]gcObject{} // owner uid -> dependents
	for _, g := range all {
		for _, ref := range g.obj.GetObjectMeta().OwnerReferences {
			dependents[ref.UID] = append(dependents[ref.UID], g)
		}
	}
	for _, g := range all {
		if err := p.collectOne(ctx, g, live, dependents); err != nil {
			return err
		}
	}
	return nil
}

func (p gcPass) collectOne(ctx context.Context, g gcObject, live map[string]gcObject, dependents map[string][]gcObject) error {
	m := g.obj.GetObjectMeta()
	_, isCustom := api.LookupCustom(g.resource)
	if isCustom && m.DeletionTimestamp != nil {
		switch {
		case slices.Contains(m.Finalizers, finalizerOrphan):
			return p.orphanDependents(ctx, g, dependents[m.UID])
		case slices.Contains(m.Finalizers, finalizerForeground):
			return p.deleteDependents(ctx, g, dependents[m.UID])
		}
	}
	if len(m.OwnerReferences) == 0 || m.DeletionTimestamp != nil {
		return nil
	}
	involvesCustom := isCustom
	for _, ref := range m.OwnerReferences {
		if owner, ok := live[ref.UID]; ok && owner.obj.GetObjectMeta().Name == ref.Name {
			return nil // an owner is there
		}
		involvesCustom = involvesCustom || isCustomKind(ref.APIVersion, ref.Kind)
	}
	if !involvesCustom {
		return nil // the model's garbage collector's
	}
	// The lists are not one snapshot: an owner created after its kind was
	// listed is read live before its dependent goes, as upstream does.
	for _, ref := range m.OwnerReferences {
		if p.r.ownerExists(ctx, ref, m.Namespace) {
			return nil
		}
	}
	background := api.DeletePropagationBackground
	o, err := p.r.Delete(ctx, g.resource, m.Namespace, m.Name, api.DeleteOptions{PropagationPolicy: &background,
		Preconditions: &api.Preconditions{UID: &m.UID}})
	return p.note(g.resource, o, err)
}

// deleteDependents deletes owner's dependents, and drops its
// foregroundDeletion finalizer once none is left.
func (p gcPass) deleteDependents(ctx context.Context, owner gcObject, deps []gcObject) error {
	if len(deps) == 0 {
		return p.dropFinalizer(ctx, owner, finalizerForeground)
	}
	foreground := api.DeletePropagationForeground
	for _, d := range deps {
		m := d.obj.GetObjectMeta()
		if m.DeletionTimestamp != nil {
			continue // on its way: wait for it to go
		}
		o, err := p.r.Delete(ctx, d.resource, m.Namespace, m.Name, api.DeleteOptions{PropagationPolicy: &foreground,
			Preconditions: &api.Preconditions{UID: &m.UID}})
		if err := p.note(d.resource, o, err); err != nil {
			return err
		}
	}
	return nil
}

// orphanDependents removes owner from its dependents' references, then
// drops its orphan finalizer.
func (p gcPass) orphanDependents(ctx context.Context, owner gcObject, deps []gcObject) error {
	uid := owner.obj.GetObjectMeta().UID
	for _, d := range deps {
		next := api.DeepCopy(d.obj)
		m := next.GetObjectMeta()
		m.OwnerReferences = slices.DeleteFunc(m.OwnerReferences, func(ref api.OwnerReference) bool { return ref.UID == uid })
		o, err := p.r.Update(ctx, next)
		if err := p.note(d.resource, o, err); err != nil {
			return err
		}
	}
	return p.dropFinalizer(ctx, owner, finalizerOrphan)
}

func (p gcPass) dropFinalizer(ctx context.Context, g gcObject, f string) error {
	next := api.DeepCopy(g.obj)
	m := next.GetObjectMeta()
	m.Finalizers = slices.DeleteFunc(slices.Clone(m.Finalizers), func(x string) bool { return x == f })
	o, err := p.r.Update(ctx, next)
	return p.note(g.resource, o, err)
}

// gcPass is one pass of CollectCustomGarbageNoting.
type gcPass struct {
	r     *Registry
	wrote func(resource string, obj api.Object)
}

// note tells wrote about a write that landed, and ignores the ones that
// found their object gone or changed (ignoreGone).
func (p gcPass) note(resource string, o api.Object, err error) error {
	if err == nil && o != nil && p.wrote != nil {
		p.wrote(resource, o)
	}
	return ignoreGone(err)
}

// ownerExists reads ref's owner live (in namespace, when its kind is
// namespaced); a read that fails counts as there, to be looked at again.
func (r *Registry) ownerExists(ctx context.Context, ref api.OwnerReference, namespace string) bool {
	info, ok := api.LookupKind(ref.Kind)
	if !ok {
		return false
	}
	if !info.Namespaced {
		namespace = ""
	}
	o, err := r.Get(ctx, info.Resource, namespace, ref.Name)
	if api.IsNotFound(err) {
		return false
	}
	return err != nil || o.GetObjectMeta().UID == ref.UID
}

// ignoreGone: an object that went or changed meanwhile is looked at again
// on the next pass.
func ignoreGone(err error) error {
	if api.IsNotFound(err) || api.IsConflict(err) {
		return nil
	}
	return err
}

// isCustomKind says whether apiVersion and kind name a custom resource.
func isCustomKind(apiVersion, kind string) bool {
	info, ok := api.LookupKind(kind)
	if !ok {
		return false
	}
	_, custom := api.LookupCustom(info.Resource)
	group, _, _ := strings.Cut(apiVersion, "/")
	return custom && strings.Contains(apiVersion, "/") && group == info.Group
}
