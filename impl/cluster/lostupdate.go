package cluster

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/client-go/applyconfigurations"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
	"sigs.k8s.io/structured-merge-diff/v6/typed"

	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/model"
)

// Lost updates of a user's controller. Convention: optimistic concurrency
// (metadata.resourceVersion). A controller builds an update from its
// informer's copy and sends that copy's resourceVersion; if another writer
// changed the object since, the update gets 409 Conflict and the
// controller rebuilds from a fresh read. An update that succeeded over a
// newer object than the one the controller's cache held, and put back the
// cached value of a field the newer object had changed (spec, labels,
// annotations, finalizers), lost the other writer's change: the controller
// sent its stale copy with a version it did not build from (a fresh
// resourceVersion stamped on it, or none at all after a Conflict).
//
// Exemptions: an update whose result keeps the newer value, as one built
// from a live read does (the controller saw the change); and a newer object
// that is the controller's own last write, whose answer it may build on.
// The check runs in the stepped driver only, where nothing writes between
// the live read and the update.

// lostUpdate reports the fields of the update that turned live into stored
// which went back to the value cached held (the controller's view), though
// live had changed them; "" if none.
func lostUpdate(cached, live, stored api.Object) string {
	c, l, s := typedObject(cached), typedObject(live), typedObject(stored)
	if c == nil || l == nil || s == nil {
		return ""
	}
	others, err := c.Compare(l)
	if err != nil {
		return ""
	}
	mine, err := c.Compare(s)
	if err != nil {
		return ""
	}
	changed := others.Added.Union(others.Removed).Union(others.Modified).Leaves()
	reverted := changed.Difference(mine.Added.Union(mine.Removed).Union(mine.Modified))
	var paths []string
	reverted.Iterate(func(p fieldpath.Path) {
		if othersField(p) {
			paths = append(paths, p.String())
		}
	})
	return strings.Join(paths, ", ")
}

// othersField is a field another writer may own: the spec, labels,
// annotations and finalizers; not the status or what the server keeps.
func othersField(p fieldpath.Path) bool {
	if len(p) == 0 || p[0].FieldName == nil {
		return false
	}
	switch *p[0].FieldName {
	case "spec":
		return true
	case "metadata":
		if len(p) < 2 || p[1].FieldName == nil {
			return false
		}
		switch *p[1].FieldName {
		case "labels", "annotations", "finalizers":
			return true
		}
	}
	return false
}

// builtinTypes knows the merge semantics (list keys, atomic fields) of
// every built-in kind, as Kubernetes' field manager does.
var builtinTypes = sync.OnceValue(func() managedfields.TypeConverter {
	return applyconfigurations.NewTypeConverter(scheme.Scheme)
})

// typedObject is o typed by its kind's schema; nil if it has none.
func typedObject(o api.Object) *typed.TypedValue {
	b, err := api.Marshal(o)
	if err != nil {
		return nil
	}
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(b); err != nil {
		return nil
	}
	tv, err := builtinTypes().ObjectToTyped(u, typed.AllowDuplicates)
	if err != nil {
		return nil
	}
	return tv
}

// checkUpdate is the lost-updates check of one of the user controller's
// updates of ref, which turned live into stored; cached is its view's copy.
func (r *recordingClient) checkUpdate(ref model.Ref, cached, live, stored api.Object) {
	if cached == nil || live == nil || stored == nil || revOf(live) == revOf(cached) || api.Meta(live).UID != api.Meta(cached).UID {
		return
	}
	if r.own[ref] == revOf(live) {
		return // its own last write: it may build on the answer
	}
	if paths := lostUpdate(cached, live, stored); paths != "" {
		r.w.c.env.report(fmt.Errorf("lost update: %s's update of %s reverted %s, which another writer changed at resourceVersion %d after the version its cache held (%d): the update was built from a stale read (convention: optimistic concurrency, metadata.resourceVersion: an update from a stale copy gets 409 Conflict and is rebuilt from a fresh read, not sent again with a fresh resourceVersion or none)",
			r.w.c.name, ref, paths, revOf(live), revOf(cached)))
	}
}

// views is, for an update of obj by the user controller, the object's ref,
// its copy in the controller's cache and the stored object before the
// update; nil copies where there is nothing to check (the running driver,
// a kind the controller does not watch).
func (r *recordingClient) views(ctx context.Context, obj api.Object) (ref model.Ref, cached, live api.Object) {
	resource := resourceOf(obj)
	k, known := model.KindOf(resource)
	if !known || r.w == nil {
		return ref, nil, nil
	}
	ref = r.refOf(obj)
	cache := r.w.c.cacheOf(k)
	if cache == nil || !r.w.c.env.stepped {
		return ref, nil, nil
	}
	cached, ok := cache.Get(ref.Namespace, ref.Name)
	if !ok {
		return ref, nil, nil
	}
	live, err := r.Client.Get(ctx, resource, ref.Namespace, ref.Name)
	if err != nil {
		return ref, nil, nil
	}
	return ref, cached, live
}

// refOf is obj's ref; the zero Ref for a kind the model does not have.
func (r *recordingClient) refOf(obj api.Object) model.Ref {
	k, known := model.KindOf(resourceOf(obj))
	if !known {
		return model.Ref{}
	}
	m := api.Meta(obj)
	ref := model.RefTo(k, m.Name)
	if k.Namespaced() {
		ref.Namespace = m.Namespace
	}
	return ref
}

// updated checks an update that succeeded and notes the version it left.
func (r *recordingClient) updated(ref model.Ref, cached, live, stored api.Object, err error) {
	if err != nil || stored == nil || ref.Name == "" {
		return
	}
	r.checkUpdate(ref, cached, live, stored)
	if r.own == nil {
		r.own = map[model.Ref]int64{}
	}
	r.own[ref] = revOf(stored)
}
