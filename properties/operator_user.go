package properties

import (
	"context"
	"encoding/base64"
	"fmt"
	"slices"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"pgregory.net/rapid"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/converge-dev/converge/model"
)

// userAction creates, updates or deletes a custom resource.
func (r *operatorRun) userAction(rt *rapid.T) {
	d := drawCustom(rt, r.kinds, r.op.Namespaces, r.op.Names)
	r.noteUserValues(d.obj["spec"])
	r.userWrite(d)
}

// userWrite performs a user's write d, records it as a step and lets the
// operator settle.
func (r *operatorRun) userWrite(d customDraw) {
	w := d.write(r.ctx, r.user)
	if w.verb == "" {
		r.fail("%v", w.err)
	}
	r.record("user", w.verb, d.k.resource+"/"+model.Key(d.ns, d.name), w.detail, nil)
	if w.err != nil && !r.refused(w.err) {
		r.fail("%s %s %s: %v", w.verb, d.k.resource, d.name, w.err)
	}
	r.noteInput(d.k, d.ns, d.name)
	r.host.IntentChanged(string(w.cur.GetUID()))
	r.sync()
}

// customDraw is a user's write of a custom resource, as drawn. What it
// draws depends on what it drew, not on the object's state, so that when
// the shrinker removes an earlier action a later one keeps its meaning:
// a delete stays a delete (of nothing, once the create is gone), and a
// create or an update draws an object.
type customDraw struct {
	k        customKind
	ns, name string
	del      bool
	obj      map[string]any // nil for a delete
	field    string         // an update changes only this field of the spec, if set
}

func drawCustom(rt *rapid.T, kinds []customKind, namespaces, names []string) customDraw {
	d := customDraw{k: kinds[rapid.IntRange(0, len(kinds)-1).Draw(rt, "kind")]}
	if d.k.namespaced {
		d.ns = rapid.SampledFrom(namespaces).Draw(rt, "namespace")
	}
	d.name = rapid.SampledFrom(names).Draw(rt, "name")
	d.del = rapid.IntRange(0, 2).Draw(rt, "write or delete") == 0
	if !d.del {
		d.obj = d.k.gen.Object(d.ns, d.name).Draw(rt, "object")
		if spec, _ := d.obj["spec"].(map[string]any); len(spec) > 0 && rapid.Bool().Draw(rt, "one field?") {
			fields := make([]string, 0, len(spec))
			for f := range spec {
				fields = append(fields, f)
			}
			slices.Sort(fields)
			d.field = rapid.SampledFrom(fields).Draw(rt, "field")
		}
	}
	return d
}

// customWrite is what a drawn write did: its verb (empty when the read
// before it failed, with that error), a detail for the step, the object
// as read before (empty if absent), and the write's error; a delete of
// an object gone meanwhile and an update that lost a race are not errors.
type customWrite struct {
	verb, detail string
	cur          *unstructured.Unstructured
	err          error
}

// write performs d with c: a delete of the object if it exists, a create
// if it does not, else an update of the drawn field (or of the whole
// spec).
func (d customDraw) write(ctx context.Context, c client.Client) customWrite {
	cur := &unstructured.Unstructured{}
	cur.SetGroupVersionKind(d.k.gvk)
	err := c.Get(ctx, client.ObjectKey{Namespace: d.ns, Name: d.name}, cur)
	exists := err == nil
	if err != nil && !apierrors.IsNotFound(err) {
		return customWrite{cur: cur, err: fmt.Errorf("get %s %s: %w", d.k.resource, d.name, err)}
	}
	switch {
	case d.del:
		w := customWrite{verb: "delete", cur: cur}
		if !exists {
			w.detail = "absent: nothing to delete"
		} else if err := c.Delete(ctx, cur); err != nil && !apierrors.IsNotFound(err) {
			w.err = err
		}
		return w
	case !exists:
		return customWrite{verb: "create", detail: compactJSON(d.obj["spec"]), cur: cur, err: c.Create(ctx, &unstructured.Unstructured{Object: d.obj})}
	}
	spec, _ := d.obj["spec"].(map[string]any)
	if spec == nil {
		spec = map[string]any{}
	}
	if old, ok := cur.Object["spec"].(map[string]any); ok && d.field != "" {
		// Users mostly change one thing at a time: the drawn spec's
		// value of one field, the rest as it was.
		old[d.field] = spec[d.field]
		spec = old
	}
	cur.Object["spec"] = spec
	w := customWrite{verb: "update", detail: compactJSON(spec), cur: cur}
	if err := c.Update(ctx, cur); err != nil && !apierrors.IsConflict(err) {
		w.err = err
	}
	return w
}

// drift is another writer: it deletes an object the operator owns, or
// changes its spec (replicas, data) or its labels.
func (r *operatorRun) drift(rt *rapid.T) {
	var owned []*unstructured.Unstructured
	for _, gvk := range r.host.Watched() {
		if r.isCustom(gvk) {
			continue
		}
		l := &unstructured.UnstructuredList{}
		l.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
		if err := r.user.List(r.ctx, l); err != nil {
			r.fail("list %s: %v", gvk.Kind, err)
		}
		for i := range l.Items {
			o := &l.Items[i]
			if len(o.GetOwnerReferences()) > 0 && o.GetDeletionTimestamp() == nil && r.ownedByCustom(o) {
				o.SetGroupVersionKind(gvk)
				owned = append(owned, o)
			}
		}
	}
	if len(owned) == 0 {
		return
	}
	o := rapid.SampledFrom(owned).Draw(rt, "drifted")
	before := o.DeepCopy()
	what := fmt.Sprintf("%s %s", strings.ToLower(o.GetKind()), model.Key(o.GetNamespace(), o.GetName()))
	if rapid.Bool().Draw(rt, "delete?") {
		r.driftDelete(o)
		return
	}
	switch {
	case hasInt(o, "spec", "replicas"):
		n, _, _ := unstructured.NestedInt64(o.Object, "spec", "replicas")
		_ = unstructured.SetNestedField(o.Object, (n+1)%4, "spec", "replicas")
		r.record("drift", "update", what, fmt.Sprintf("another writer sets spec.replicas to %d", (n+1)%4), nil)
	case hasData(o):
		data := o.Object["data"].(map[string]any)
		keys := make([]string, 0, len(data))
		for k := range data {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		data[keys[0]] = "drifted"
		if o.GetKind() == "Secret" { // a Secret's data is base64
			data[keys[0]] = base64.StdEncoding.EncodeToString([]byte("drifted"))
		}
		r.record("drift", "update", what, "another writer sets data."+keys[0], nil)
	default:
		labels := o.GetLabels()
		if labels == nil {
			labels = map[string]string{}
		}
		labels["converge.dev/drift"] = "true"
		o.SetLabels(labels)
		r.record("drift", "update", what, "another writer labels it", nil)
	}
	if err := r.other().Update(r.ctx, o); err == nil {
		r.markDrift(o, false, "update")
		r.noteForeign(before)
	} else if !apierrors.IsConflict(err) && !apierrors.IsNotFound(err) && !r.refused(err) {
		r.fail("drift: %v", err)
	}
	r.sync()
}

// driftDelete is another writer deleting o, which the operator owns.
func (r *operatorRun) driftDelete(o *unstructured.Unstructured) {
	what := fmt.Sprintf("%s %s", strings.ToLower(o.GetKind()), model.Key(o.GetNamespace(), o.GetName()))
	r.record("drift", "delete", what, "another writer deletes it", nil)
	if err := r.user.Delete(r.ctx, o); err == nil {
		r.markDrift(o, true, "delete")
	} else if !apierrors.IsNotFound(err) {
		r.fail("drift: %v", err)
	}
	r.sync()
}

// refused says whether err is the server refusing what a user or another
// writer sent, as it would in a cluster, and notes it on the step: one of
// the operator's admission webhooks denied it, or it is invalid (a drawn
// field merged into the stored spec can break a rule across fields).
func (r *operatorRun) refused(err error) bool {
	if !strings.HasPrefix(err.Error(), "admission webhook ") && !apierrors.IsInvalid(err) {
		return false
	}
	e := &r.events[len(r.events)-1]
	e.Detail = strings.TrimPrefix(e.Detail+"; refused: "+err.Error(), "; ")
	return true
}

func hasData(o *unstructured.Unstructured) bool {
	data, ok := o.Object["data"].(map[string]any)
	return ok && len(data) > 0
}

func hasInt(o *unstructured.Unstructured, path ...string) bool {
	_, ok, err := unstructured.NestedInt64(o.Object, path...)
	return ok && err == nil
}

func (r *operatorRun) isCustom(gvk schema.GroupVersionKind) bool {
	for _, k := range r.kinds {
		if k.gvk.GroupKind() == gvk.GroupKind() {
			return true
		}
	}
	return false
}

func (r *operatorRun) ownedByCustom(o *unstructured.Unstructured) bool {
	for _, ref := range o.GetOwnerReferences() {
		if gv, err := schema.ParseGroupVersion(ref.APIVersion); err == nil && r.isCustom(gv.WithKind(ref.Kind)) {
			return true
		}
	}
	return false
}
