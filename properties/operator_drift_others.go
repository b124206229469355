package properties

import (
	"fmt"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"pgregory.net/rapid"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/converge-dev/converge/model"
)

// The fields other writers keep on what an operator owns: another
// manager's label or annotation, kubectl rollout restart's annotation on
// a pod template, an injected sidecar, replicas through the scale
// subresource (an autoscaler's). Each writes as otherManager.
const (
	otherLabel   = "converge.dev/other-writer"
	restartedAt  = "kubectl.kubernetes.io/restartedAt"
	sidecarName  = "converge-sidecar"
	sidecarImage = "busybox:1.36"
)

// driftOthers is another field manager changing fields the operator does
// not own on one object the operator owns, drawn among the kinds of
// change the object admits.
func (r *operatorRun) driftOthers(rt *rapid.T) {
	owned := r.ownedChildren()
	if len(owned) == 0 {
		return
	}
	o := rapid.SampledFrom(owned).Draw(rt, "drifted")
	kinds := []string{"label", "annotation"}
	if _, ok, _ := unstructured.NestedSlice(o.Object, "spec", "template", "spec", "containers"); ok {
		kinds = append(kinds, "restart", "sidecar")
	}
	if o.GetKind() == "Deployment" || o.GetKind() == "ReplicaSet" || o.GetKind() == "StatefulSet" {
		kinds = append(kinds, "scale")
	}
	r.otherWrite(o, rapid.SampledFrom(kinds).Draw(rt, "other writer's field"))
}

// otherWrite is otherManager's change of one kind ("label",
// "annotation", "restart", "sidecar", "scale") on o.
func (r *operatorRun) otherWrite(o *unstructured.Unstructured, kind string) {
	before := o.DeepCopy()
	what := fmt.Sprintf("%s %s", strings.ToLower(o.GetKind()), model.Key(o.GetNamespace(), o.GetName()))
	value := fmt.Sprintf("v%d", len(r.events)+1)
	var err error
	switch kind {
	case "label":
		r.record("drift", "update", what, fmt.Sprintf("%s labels it %s=%s", otherManager, otherLabel, value), nil)
		err = r.patchOther(o, map[string]any{"metadata": map[string]any{"labels": map[string]any{otherLabel: value}}})
	case "annotation":
		r.record("drift", "update", what, fmt.Sprintf("%s annotates it %s=%s", otherManager, otherLabel, value), nil)
		err = r.patchOther(o, map[string]any{"metadata": map[string]any{"annotations": map[string]any{otherLabel: value}}})
	case "restart":
		// kubectl rollout restart: the logical clock's time, so the run
		// stays deterministic.
		at := r.s.Now().UTC().Format(time.RFC3339)
		r.record("drift", "update", what, fmt.Sprintf("%s restarts it (kubectl rollout restart: %s=%s)", otherManager, restartedAt, at), nil)
		err = r.patchOther(o, map[string]any{"spec": map[string]any{"template": map[string]any{"metadata": map[string]any{
			"annotations": map[string]any{restartedAt: at}}}}})
	case "sidecar":
		r.record("drift", "update", what, fmt.Sprintf("%s injects the sidecar container %s", otherManager, sidecarName), nil)
		containers, _, _ := unstructured.NestedSlice(o.Object, "spec", "template", "spec", "containers")
		if !hasContainer(containers, sidecarName) {
			containers = append(containers, map[string]any{"name": sidecarName, "image": sidecarImage})
		}
		_ = unstructured.SetNestedSlice(o.Object, containers, "spec", "template", "spec", "containers")
		err = r.other().Update(r.ctx, o)
	default: // scale
		n, _, _ := unstructured.NestedInt64(o.Object, "spec", "replicas")
		r.record("drift", "scale", what, fmt.Sprintf("%s scales it to %d through the scale subresource", otherManager, (n+1)%4), nil)
		patch := fmt.Appendf(nil, `{"spec":{"replicas":%d}}`, (n+1)%4)
		err = r.other().SubResource("scale").Patch(r.ctx, o, client.RawPatch(types.MergePatchType, patch))
	}
	switch {
	case err == nil:
		// A write's answer is what it wrote to (a Scale, for a
		// scale): the object itself is read again.
		if err := r.user.Get(r.ctx, client.ObjectKeyFromObject(before), o); err != nil {
			r.fail("drift: %v", err)
		}
		o.SetGroupVersionKind(before.GroupVersionKind())
		r.markDrift(o, false, "update")
		r.noteForeign(before)
	case !apierrors.IsConflict(err) && !apierrors.IsNotFound(err) && !r.refused(err):
		r.fail("drift: %v", err)
	}
	r.sync()
}

// patchOther merge-patches o as otherManager, as kubectl label and
// kubectl annotate do.
func (r *operatorRun) patchOther(o *unstructured.Unstructured, patch map[string]any) error {
	return r.other().Patch(r.ctx, o, client.RawPatch(types.MergePatchType, []byte(compactJSON(patch))))
}

// ownedChildren is the live objects the operator watches that a custom
// resource owns.
func (r *operatorRun) ownedChildren() []*unstructured.Unstructured {
	var owned []*unstructured.Unstructured
	for _, gvk := range r.host.Watched() {
		if r.isCustom(gvk) {
			continue
		}
		for _, o := range r.list(gvk) {
			if len(o.GetOwnerReferences()) > 0 && o.GetDeletionTimestamp() == nil && r.ownedByCustom(&o) {
				o.SetGroupVersionKind(gvk)
				owned = append(owned, o.DeepCopy())
			}
		}
	}
	return owned
}

func hasContainer(containers []any, name string) bool {
	for _, c := range containers {
		if m, ok := c.(map[string]any); ok && m["name"] == name {
			return true
		}
	}
	return false
}

// maskOtherWriter removes, for the differential oracle, the other
// writer's sidecar from a pod template's or a pod's containers, and a pod
// template's annotations that masking emptied (see operatorMasks).
func maskOtherWriter(obj map[string]any) {
	if a, ok, _ := unstructured.NestedMap(obj, "spec", "template", "metadata", "annotations"); ok && len(a) == 0 {
		unstructured.RemoveNestedField(obj, "spec", "template", "metadata", "annotations")
	}
	for _, path := range [][]string{{"spec", "template", "spec", "containers"}, {"spec", "containers"}} {
		containers, ok, _ := unstructured.NestedSlice(obj, path...)
		if !ok || !hasContainer(containers, sidecarName) {
			continue
		}
		kept := containers[:0]
		for _, c := range containers {
			if m, ok := c.(map[string]any); !ok || m["name"] != sidecarName {
				kept = append(kept, c)
			}
		}
		_ = unstructured.SetNestedSlice(obj, kept, path...)
	}
}
