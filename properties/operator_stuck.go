package properties

import (
	"slices"
	"strings"

	"github.com/converge-dev/converge/model"
)

// withoutStuckStatus is got and want without the status of a Deployment
// whose template names an image that never runs (one whose pulls fail in
// this world, or one the kubelet cannot parse: model/image_name.go), nor
// that of the custom resource that controls it. Such a rollout is stuck
// where its history left it (how many old pods still serve, how many new
// ones wait: upstream's too), which a sequential run of the same inputs
// does not replay, and the owner's status reports those counts. Their
// specs, and everything else, are compared (the model's differential
// does the same: stuckRollouts). The teeth tests are
// TestWithoutStuckStatusKeepsTheSpec and, on an operator,
// TestStuckRolloutKeepsItsSpecCompared.
//
// also are state keys stuck whatever their template names now
// (stuckStatefulSets).
func withoutStuckStatus(got, want map[string]map[string]any, failing []string, also ...string) (map[string]map[string]any, map[string]map[string]any) {
	stuck := map[string]bool{}
	for _, key := range also {
		for _, m := range []map[string]map[string]any{got, want} {
			if obj, ok := m[key]; ok {
				stuck[key] = true
				if owner, ok := controllerKey(key, obj); ok {
					stuck[owner] = true
				}
			}
		}
	}
	for _, m := range []map[string]map[string]any{got, want} {
		for key, obj := range m {
			if !strings.HasPrefix(key, "Deployment ") || !namesStuckImage(obj, failing) {
				continue
			}
			stuck[key] = true
			if owner, ok := controllerKey(key, obj); ok {
				stuck[owner] = true
			}
		}
	}
	if len(stuck) == 0 {
		return got, want
	}
	strip := func(m map[string]map[string]any) map[string]map[string]any {
		out := make(map[string]map[string]any, len(m))
		for key, obj := range m {
			if stuck[key] {
				obj = deepCopyJSON(obj)
				delete(obj, "status")
			}
			out[key] = obj
		}
		return out
	}
	return strip(got), strip(want)
}

// namesStuckImage says whether a Deployment's template names an image
// that never runs.
func namesStuckImage(obj map[string]any, failing []string) bool {
	spec, _ := obj["spec"].(map[string]any)
	tpl, _ := spec["template"].(map[string]any)
	pod, _ := tpl["spec"].(map[string]any)
	cs, _ := pod["containers"].([]any)
	for _, c := range cs {
		m, _ := c.(map[string]any)
		if img, ok := m["image"].(string); ok && (slices.Contains(failing, img) || model.ImageNameError(img) != "") {
			return true
		}
	}
	return false
}

// controllerKey is the state key of the object's controller owner, in
// the object's namespace.
func controllerKey(key string, obj map[string]any) (string, bool) {
	meta, _ := obj["metadata"].(map[string]any)
	refs, _ := meta["ownerReferences"].([]any)
	_, rest, _ := strings.Cut(key, " ")
	ns, _, _ := strings.Cut(rest, "/")
	if !strings.Contains(rest, "/") {
		ns = ""
	}
	for _, r := range refs {
		m, _ := r.(map[string]any)
		if c, _ := m["controller"].(bool); !c {
			continue
		}
		kind, _ := m["kind"].(string)
		name, _ := m["name"].(string)
		return kind + " " + model.Key(ns, name), true
	}
	return "", false
}

// stuckStatefulSets are the state keys of the StatefulSets whose template
// named, at some step of this run, an image that fails to pull in this
// world. A StatefulSet's rolling update (OrderedReady, upstream's too)
// never replaces a pod that is not Running and Ready: one made from the
// failing template waits in ImagePullBackOff even once the template names
// a good image again (kubernetes/kubernetes#67250, "forced rollback").
// Whether a pod was made before the template moved on is timing, which a
// sequential reference does not replay, so their status, and their
// owner's, is history. Their specs are compared; the reference settles
// the inputs this run's operator acted on, so it names what this run
// named. The teeth test is TestStuckStatefulSetKeepsItsSpecCompared.
func (r *operatorRun) stuckStatefulSets() []string {
	failing := r.s.FailingImages()
	if len(failing) == 0 {
		return nil
	}
	seen := map[string]bool{}
	var out []string
	for _, snap := range r.states {
		if snap == nil {
			continue
		}
		for _, o := range snap.List(model.KindStatefulSet) {
			set := o.(*model.StatefulSet)
			key := "StatefulSet " + model.KeyOf(set)
			if !seen[key] && slices.Contains(failing, set.Image) {
				seen[key] = true
				out = append(out, key)
			}
		}
	}
	slices.Sort(out)
	return out
}
