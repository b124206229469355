package properties

import (
	"bytes"
	"strconv"
	"strings"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/client-go/applyconfigurations"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
	"sigs.k8s.io/structured-merge-diff/v6/typed"

	"github.com/converge-dev/converge/impl/operator"
)

// The lost-updates oracle. Convention: server-side field ownership
// (metadata.managedFields: each field manager's fieldsV1 set) and
// optimistic concurrency (a write carries the resourceVersion it was built
// from; a stale one gets 409 Conflict). Together they keep another
// writer's fields: a label another manager adds, kubectl rollout
// restart's restartedAt annotation, an injected sidecar, replicas set
// through the scale subresource. A write of the operator built from a
// stale read (its view of the object older than the other writer's
// write) that reverts such a field, one the operator's manager never
// owned, is a lost update: it passed the resourceVersion check only by
// carrying a version it did not build from (a fresh resourceVersion on a
// stale copy, a stale copy re-sent after a 409).
//
// Exemptions, each a legitimate write:
//   - a field any manager but the other writer owned at some point of the
//     run (the operator set spec.replicas first; its creation owns the
//     defaults, as Kubernetes' field manager records a create): the
//     operator may put back what it owns;
//   - a write built from a view that already held the other writer's
//     change: the operator saw the field and chose to overwrite it (a
//     fight the fixed-point oracle sees, not an update lost unseen);
//   - an object deleted (and recreated): the fields go with the object,
//     whose new incarnation is not the one the other writer wrote; what
//     the other writer sets on the new one is kept to it again
//     (TestLostUpdatesCatchALossOnTheObjectMadeAgain).

// otherManager is the field manager of the harness's drift, a writer
// other than the operator (the operator's client is converge-operator).
const otherManager = "other-writer"

// foreignFields is what the other writer set on one object.
type foreignFields struct {
	gvk  schema.GroupVersionKind
	key  client.ObjectKey
	uid  string
	rev  int64             // the object's version after the other writer's last write
	step int               // the step of that write
	set  *fieldpath.Set    // the leaves the other writer's managedFields entries own
	at   *typed.TypedValue // the object after that write
	ever *fieldpath.Set    // what every other manager owned so far
	last int64             // the version the oracle last checked
}

// lostUpdates is the oracle's state across a run.
type lostUpdates struct {
	objects map[string]*foreignFields              // by kind and key
	views   map[operator.Item]map[string]cachedRev // the operator's view when a reconcile began
}

// cachedRev is an object as the operator's informer held it.
type cachedRev struct {
	uid string
	rev int64
	ok  bool
}

// other is the harness's client writing as otherManager.
func (r *operatorRun) other() client.Client {
	return client.WithFieldOwner(r.user, otherManager)
}

// noteForeign records the fields the other writer owns on o after its
// write; before is o as it was, whose owners' fields count as owned.
func (r *operatorRun) noteForeign(before *unstructured.Unstructured) {
	if r.reference || r.skipped(oracleLostUpdates) {
		return
	}
	cur := &unstructured.Unstructured{}
	cur.SetGroupVersionKind(before.GroupVersionKind())
	if err := r.user.Get(r.ctx, client.ObjectKeyFromObject(before), cur); err != nil {
		if !apierrors.IsNotFound(err) {
			r.fail("lost updates: get %s %s: %v", before.GetKind(), before.GetName(), err)
		}
		return
	}
	cur.SetGroupVersionKind(before.GroupVersionKind())
	if r.lost.objects == nil {
		r.lost.objects = map[string]*foreignFields{}
	}
	k := foreignKey(cur)
	f := r.lost.objects[k]
	if f == nil || f.uid != string(cur.GetUID()) {
		f = &foreignFields{gvk: cur.GroupVersionKind(), key: client.ObjectKeyFromObject(cur), uid: string(cur.GetUID()), ever: &fieldpath.Set{}}
		r.lost.objects[k] = f
	}
	if string(before.GetUID()) == f.uid {
		f.ever = f.ever.Union(ownedBy(before, false))
	}
	f.ever = f.ever.Union(ownedBy(cur, false))
	f.set = ownedBy(cur, true).Leaves()
	f.at = typedOf(cur)
	f.rev, f.last, f.step = revOf(cur), revOf(cur), len(r.events)
}

// beginLost notes the operator's view of every object the other writer
// wrote, as a reconcile begins (a parked one builds its later writes
// from what it read then).
func (r *operatorRun) beginLost(it operator.Item) {
	if len(r.lost.objects) == 0 {
		return
	}
	v := map[string]cachedRev{}
	for k, f := range r.lost.objects {
		var c cachedRev
		var rev string
		c.uid, rev, c.ok = r.host.Cached(f.gvk.GroupKind(), f.key.Namespace, f.key.Name)
		c.rev, _ = strconv.ParseInt(rev, 10, 64)
		v[k] = c
	}
	if r.lost.views == nil {
		r.lost.views = map[operator.Item]map[string]cachedRev{}
	}
	r.lost.views[it] = v
}

// checkLost runs after a step of reconcile it (only the operator writes
// in it): a field of the other writer's that the step removed or changed
// is a lost update, unless exempt (see above). done: the reconcile ended.
func (r *operatorRun) checkLost(it operator.Item, done bool) {
	r.rt.Helper()
	view := r.lost.views[it]
	if done {
		delete(r.lost.views, it)
	}
	for k, f := range r.lost.objects {
		cur := &unstructured.Unstructured{}
		cur.SetGroupVersionKind(f.gvk)
		err := r.user.Get(r.ctx, f.key, cur)
		switch {
		case apierrors.IsNotFound(err) || (err == nil && string(cur.GetUID()) != f.uid):
			delete(r.lost.objects, k) // gone with its object: exempt
			continue
		case err != nil:
			r.fail("lost updates: get %s %s: %v", f.gvk.Kind, f.key, err)
		case revOf(cur) == f.last:
			continue
		}
		cur.SetGroupVersionKind(f.gvk)
		f.last = revOf(cur)
		now := typedOf(cur)
		if now == nil || f.at == nil {
			continue // untyped: nothing to compare the fields by
		}
		lost := &fieldpath.Set{}
		if cmp, err := f.at.ExtractItems(f.set).Compare(now.ExtractItems(f.set)); err == nil {
			lost = cmp.Removed.Union(cmp.Modified).Intersection(f.set)
		}
		lost = lost.Difference(f.ever)
		c, seen := view[k]
		stale := seen && c.ok && c.uid == f.uid && c.rev < f.rev
		if !lost.Empty() && stale && !r.skipped(oracleLostUpdates) {
			r.fail("lost updates: the operator's write at step %d (reconcile %s) reverted %s of %s %s, which field manager %q set at step %d (resourceVersion %d) and the operator never owned; the write was built from a stale view: the operator's cache held resourceVersion %d (convention: server-side field ownership, metadata.managedFields, and optimistic concurrency: a write built from a stale read gets 409 Conflict and must be rebuilt from a fresh read, not re-sent with a fresh resourceVersion; Operator.Skip[%q] turns this off)",
				len(r.events), it, pathList(lost), strings.ToLower(f.gvk.Kind), f.key, otherManager, f.step, f.rev, c.rev, oracleLostUpdates)
		}
		// What the operator took over from a fresh view, or owned before,
		// is no longer the other writer's to keep.
		f.set = f.set.Difference(lost)
		f.ever = f.ever.Union(ownedBy(cur, false))
		if f.set.Empty() {
			delete(r.lost.objects, k)
		}
	}
}

// ownedBy is the union of the fieldsV1 sets of o's managedFields
// entries: the other writer's (other) or every other manager's.
func ownedBy(o *unstructured.Unstructured, other bool) *fieldpath.Set {
	out := &fieldpath.Set{}
	for _, e := range o.GetManagedFields() {
		if (e.Manager == otherManager) != other || e.FieldsV1 == nil {
			continue
		}
		s := &fieldpath.Set{}
		if err := s.FromJSON(bytes.NewReader(e.FieldsV1.Raw)); err == nil {
			out = out.Union(s)
		}
	}
	return out
}

// builtinTypes knows the merge semantics (list keys, atomic fields) of
// every built-in kind, as the apiserver's field manager does.
var builtinTypes = sync.OnceValue(func() managedfields.TypeConverter {
	return applyconfigurations.NewTypeConverter(scheme.Scheme)
})

// typedOf is o typed by its kind's schema, or by a deduced one for a kind
// client-go does not ship (a custom resource); nil if neither types it.
func typedOf(o *unstructured.Unstructured) *typed.TypedValue {
	if tv, err := builtinTypes().ObjectToTyped(o, typed.AllowDuplicates); err == nil {
		return tv
	}
	if tv, err := managedfields.NewDeducedTypeConverter().ObjectToTyped(o); err == nil {
		return tv
	}
	return nil
}

func foreignKey(o *unstructured.Unstructured) string {
	return o.GetKind() + " " + traceName(o.GetNamespace(), o.GetName())
}

// pathList names the paths of s, as kubectl's field paths read.
func pathList(s *fieldpath.Set) string {
	var out []string
	s.Iterate(func(p fieldpath.Path) { out = append(out, p.String()) })
	return strings.Join(out, ", ")
}
