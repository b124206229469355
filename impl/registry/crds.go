package registry

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/impl/crd"
	"github.com/converge-dev/converge/impl/store"
)

// What serving a CustomResourceDefinition takes, as upstream's
// apiextensions controllers do it: naming and establishing it, and, when
// it is deleted, deleting its custom resources before it goes. SyncCRD is
// the reconcile; a driver calls it for every change of a CRD (see
// apiserver's CRD loop and tests).

const crdResource = "customresourcedefinitions"

// CRDCleanupFinalizer holds a deleted CRD until its custom resources are
// gone.
const CRDCleanupFinalizer = "customresourcecleanup.apiextensions.k8s.io"

// servedCRD is what a registry registered for one CRD.
type servedCRD struct {
	resource, owner string
}

var servedCRDs sync.Map // *Registry -> *sync.Map (CRD name -> servedCRD)

func (r *Registry) served() *sync.Map {
	m, _ := servedCRDs.LoadOrStore(r, &sync.Map{})
	return m.(*sync.Map)
}

// SyncCRD brings what is served in line with the CRD name as stored. It
// returns pending when a deleted CRD still waits for its custom resources
// to go; the caller calls again later.
func (r *Registry) SyncCRD(ctx context.Context, name string) (pending bool, err error) {
	obj, err := r.Get(ctx, crdResource, "", name)
	if api.IsNotFound(err) {
		r.unserve(name)
		return false, nil
	}
	if err != nil {
		return false, err
	}
	c := obj.(*api.CustomResourceDefinition)
	if c.DeletionTimestamp != nil {
		return r.cleanUpCRD(ctx, c)
	}
	return false, r.establish(ctx, c)
}

// unserveAll ends every registration r made.
func (r *Registry) unserveAll() {
	r.served().Range(func(name, _ any) bool {
		r.unserve(name.(string))
		return true
	})
	servedCRDs.Delete(r)
}

func (r *Registry) unserve(name string) {
	if v, ok := r.served().LoadAndDelete(name); ok {
		s := v.(servedCRD)
		api.UnregisterCustom(s.owner, s.resource)
	}
}

// establish registers c's resource and records the outcome in c's
// conditions: NamesAccepted and Established, or why not.
func (r *Registry) establish(ctx context.Context, c *api.CustomResourceDefinition) error {
	k := c.DeepCopy()
	// What is registered is the CRD as it will be once accepted: the
	// OpenAPI builder reads the accepted names.
	k.Status.AcceptedNames = k.Spec.Names
	res, err := customResourceOf(k)
	owner := fmt.Sprintf("%p/%s", r, c.UID)
	if err == nil {
		if prev, ok := r.served().Load(c.Name); ok && prev.(servedCRD).resource != res.Info.Resource {
			r.unserve(c.Name)
		}
		err = api.RegisterCustom(owner, res)
	}
	status := c.Status.DeepCopy()
	now := r.clock()
	if err != nil {
		setCRDCondition(status, apiextensionsv1.NamesAccepted, apiextensionsv1.ConditionFalse, "NameConflict", err.Error(), now)
		setCRDCondition(status, apiextensionsv1.Established, apiextensionsv1.ConditionFalse, "NotAccepted", "not all names are accepted", now)
	} else {
		r.served().Store(c.Name, servedCRD{resource: res.Info.Resource, owner: owner})
		status.AcceptedNames = k.Spec.Names
		setCRDCondition(status, apiextensionsv1.NamesAccepted, apiextensionsv1.ConditionTrue, "NoConflicts", "no conflicts found", now)
		setCRDCondition(status, apiextensionsv1.Established, apiextensionsv1.ConditionTrue, "InitialNamesAccepted", "the initial names have been accepted", now)
	}
	status.StoredVersions = storedVersions(status.StoredVersions, res.Info.Version)
	return r.writeCRDStatus(ctx, c, status)
}

// storedVersions adds the storage version to those objects may be stored
// at, as upstream keeps the list for migrations.
func storedVersions(have []string, storage string) []string {
	if storage == "" || slices.Contains(have, storage) {
		return have
	}
	return append(slices.Clone(have), storage)
}

// writeCRDStatus writes status if it differs from c's; a conflict means
// another change came, whose own sync follows.
func (r *Registry) writeCRDStatus(ctx context.Context, c *api.CustomResourceDefinition, status *apiextensionsv1.CustomResourceDefinitionStatus) error {
	if equalCRDStatus(&c.Status, status) {
		return nil
	}
	next := api.DeepCopy(c)
	next.Status = *status
	_, err := r.UpdateStatus(ctx, next)
	if api.IsConflict(err) || api.IsNotFound(err) {
		return nil
	}
	return err
}

// cleanUpCRD deletes c's custom resources, then lets c go.
func (r *Registry) cleanUpCRD(ctx context.Context, c *api.CustomResourceDefinition) (bool, error) {
	if !slices.Contains(c.Finalizers, CRDCleanupFinalizer) {
		return false, nil
	}
	// Creates are refused before the Terminating condition shows, so that
	// a client that has seen it cannot create one more.
	resource := c.Spec.Names.Plural
	cr, served := api.LookupCustom(resource)
	if served {
		if v, mine := r.served().Load(c.Name); mine && !cr.Terminating {
			cr.Terminating = true
			if err := api.RegisterCustom(v.(servedCRD).owner, cr); err != nil {
				return false, err
			}
		}
	}
	status := c.Status.DeepCopy()
	setCRDCondition(status, apiextensionsv1.Terminating, apiextensionsv1.ConditionTrue, "InstanceDeletionInProgress", "CustomResource deletion is in progress", r.clock())
	if err := r.writeCRDStatus(ctx, c, status); err != nil {
		return false, err
	}
	if served {
		l, err := r.List(ctx, resource, "", ListOptions{})
		if err != nil {
			return false, err
		}
		if items := api.Items(l); len(items) > 0 {
			background := api.DeletePropagationBackground
			for _, o := range items {
				m := api.Meta(o)
				if m.DeletionTimestamp != nil {
					continue
				}
				if _, err := r.Delete(ctx, resource, m.Namespace, m.Name, api.DeleteOptions{PropagationPolicy: &background}); err != nil && !api.IsNotFound(err) {
					return false, err
				}
			}
			return true, nil
		}
	}
	r.unserve(c.Name)
	return false, r.dropCleanupFinalizer(ctx, c)
}

// dropCleanupFinalizer lets c go. Upstream's finalizer controller drops it
// through the status subresource, which does not validate the spec against
// status.storedVersions; an Update would, and a CRD whose stored versions
// name one its spec dropped could then never go. So c, when the cleanup
// finalizer is its last, is removed as an update that empties the
// finalizers removes it (without a write of its own).
func (r *Registry) dropCleanupFinalizer(ctx context.Context, c *api.CustomResourceDefinition) error {
	rest := slices.DeleteFunc(slices.Clone(c.Finalizers), func(f string) bool { return f == CRDCleanupFinalizer })
	if len(rest) > 0 {
		next := api.DeepCopy(c)
		next.Finalizers = rest
		_, err := r.Update(ctx, next)
		return ignoreGone(err)
	}
	info, err := lookup(crdResource)
	if err != nil {
		return err
	}
	cur, rev, err := r.get(ctx, info, "", c.Name)
	if err != nil || api.Meta(cur).UID != c.UID || !slices.Equal(api.Meta(cur).Finalizers, c.Finalizers) {
		return ignoreGone(err) // changed meanwhile: its own sync follows
	}
	_, err = r.remove(ctx, store.Key{Resource: crdResource, Name: c.Name}, cur, rev)
	if errors.Is(err, errRetry) || errors.Is(err, store.ErrNotFound) {
		return nil
	}
	return err
}

// customResourceOf is the table entry a CRD serves, with each served
// version's compiled schema.
func customResourceOf(k *apiextensionsv1.CustomResourceDefinition) (api.CustomResource, error) {
	n := k.Spec.Names
	info := api.ResourceInfo{Resource: n.Plural, Singular: n.Singular, Kind: n.Kind, ListKind: n.ListKind,
		Group: k.Spec.Group, Namespaced: k.Spec.Scope == apiextensionsv1.NamespaceScoped,
		ShortNames: slices.Clone(n.ShortNames), Categories: slices.Clone(n.Categories),
		Verbs: []string{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"}}
	res := api.CustomResource{Schemas: map[string]api.CustomSchema{}, Extra: k}
	for _, v := range k.Spec.Versions {
		if v.Storage {
			info.Version = v.Name
			if v.Subresources != nil && v.Subresources.Status != nil {
				info.Subresources = append(info.Subresources, api.Subresource{Name: "status", Kind: n.Kind,
					Group: k.Spec.Group, Version: v.Name, Verbs: []string{"get", "patch", "update"}})
			}
			if v.Subresources != nil && v.Subresources.Scale != nil {
				info.Subresources = append(info.Subresources, api.Subresource{Name: "scale", Kind: "Scale",
					Group: "autoscaling", Version: "v1", Verbs: []string{"get", "patch", "update"}})
			}
		}
		if !v.Served {
			continue
		}
		res.Served = append(res.Served, v.Name)
		compiled, err := crd.Compile(k, v.Name)
		if err != nil {
			return api.CustomResource{}, fmt.Errorf("version %s: %w", v.Name, err)
		}
		res.Schemas[v.Name] = compiled
	}
	res.Info = info
	return res, nil
}

func setCRDCondition(s *apiextensionsv1.CustomResourceDefinitionStatus, t apiextensionsv1.CustomResourceDefinitionConditionType,
	status apiextensionsv1.ConditionStatus, reason, message string, now time.Time) {
	for i := range s.Conditions {
		c := &s.Conditions[i]
		if c.Type != t {
			continue
		}
		if c.Status != status {
			c.LastTransitionTime = metav1.NewTime(now)
		}
		c.Status, c.Reason, c.Message = status, reason, message
		return
	}
	s.Conditions = append(s.Conditions, apiextensionsv1.CustomResourceDefinitionCondition{Type: t, Status: status,
		Reason: reason, Message: message, LastTransitionTime: metav1.NewTime(now)})
}

func equalCRDStatus(a, b *apiextensionsv1.CustomResourceDefinitionStatus) bool {
	return equality.Semantic.DeepEqual(a, b)
}

// UnserveCRDs stops serving the CRDs this registry serves, as the end of
// RunCRDs does: for a harness that installed them with InstallCRDs alone.
func (r *Registry) UnserveCRDs() { r.unserveAll() }

// ignoreGone: an object that went or changed meanwhile is looked at again
// on the next pass.
func ignoreGone(err error) error {
	if api.IsNotFound(err) || api.IsConflict(err) {
		return nil
	}
	return err
}
