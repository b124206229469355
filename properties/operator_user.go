package properties

import (
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
	k := r.kinds[rapid.IntRange(0, len(r.kinds)-1).Draw(rt, "kind")]
	ns := ""
	if k.namespaced {
		ns = rapid.SampledFrom(r.op.Namespaces).Draw(rt, "namespace")
	}
	name := rapid.SampledFrom(r.op.Names).Draw(rt, "name")
	// What a user action draws depends on what it drew, not on the
	// object's state, so that when the shrinker removes an earlier action
	// a later one keeps its meaning: a delete stays a delete (of nothing,
	// once the create is gone), and a create or an update draws an object.
	del := rapid.IntRange(0, 2).Draw(rt, "write or delete") == 0
	var obj map[string]any
	field := ""
	if !del {
		obj = k.gen.Object(ns, name).Draw(rt, "object")
		r.noteUserValues(obj["spec"])
		if spec, _ := obj["spec"].(map[string]any); len(spec) > 0 && rapid.Bool().Draw(rt, "one field?") {
			fields := make([]string, 0, len(spec))
			for f := range spec {
				fields = append(fields, f)
			}
			slices.Sort(fields)
			field = rapid.SampledFrom(fields).Draw(rt, "field")
		}
	}
	r.userWrite(k, ns, name, obj, field)
}

// userWrite is a user's write of k's custom resource ns/name: obj
// creates it or, with field set, updates that field of its spec, else
// its whole spec; a nil obj deletes it.
func (r *operatorRun) userWrite(k customKind, ns, name string, obj map[string]any, field string) {
	del := obj == nil
	cur := &unstructured.Unstructured{}
	cur.SetGroupVersionKind(k.gvk)
	err := r.user.Get(r.ctx, client.ObjectKey{Namespace: ns, Name: name}, cur)
	exists := err == nil
	if err != nil && !apierrors.IsNotFound(err) {
		r.fail("get %s %s: %v", k.resource, name, err)
	}
	switch {
	case del:
		detail := ""
		if !exists {
			detail = "absent: nothing to delete"
		}
		r.record("user", "delete", k.resource+"/"+model.Key(ns, name), detail, nil)
		if exists {
			if err := r.user.Delete(r.ctx, cur); err != nil && !apierrors.IsNotFound(err) {
				r.fail("delete %s %s: %v", k.resource, name, err)
			}
		}
	case !exists:
		r.record("user", "create", k.resource+"/"+model.Key(ns, name), compactJSON(obj["spec"]), nil)
		if err := r.user.Create(r.ctx, &unstructured.Unstructured{Object: obj}); err != nil && !r.refused(err) {
			r.fail("create %s %s: %v", k.resource, name, err)
		}
	default:
		spec, _ := obj["spec"].(map[string]any)
		if spec == nil {
			spec = map[string]any{}
		}
		if old, ok := cur.Object["spec"].(map[string]any); ok && field != "" {
			// Users mostly change one thing at a time: the drawn spec's
			// value of one field, the rest as it was.
			old[field] = spec[field]
			spec = old
		}
		cur.Object["spec"] = spec
		r.record("user", "update", k.resource+"/"+model.Key(ns, name), compactJSON(spec), nil)
		if err := r.user.Update(r.ctx, cur); err != nil && !apierrors.IsConflict(err) && !r.refused(err) {
			r.fail("update %s %s: %v", k.resource, name, err)
		}
	}
	r.noteInput(k, ns, name)
	r.host.IntentChanged(string(cur.GetUID()))
	r.sync()
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
