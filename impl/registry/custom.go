package registry

import (
	"maps"

	"k8s.io/apimachinery/pkg/api/equality"

	"github.com/converge-dev/converge/impl/api"
)

// Custom resources keep their status in their unstructured content; these
// are the registry's status rules for them, as upstream's custom resource
// strategy has them.

// setCustomStatus sets dst's status to src's, or drops it when src has
// none.
func setCustomStatus(dst, src *api.CustomObject) {
	if st, ok := src.Content["status"]; ok {
		if dst.Content == nil {
			dst.Content = map[string]any{}
		}
		dst.Content["status"] = st
	} else {
		delete(dst.Content, "status")
	}
}

// customBodyChanged: upstream bumps a custom resource's generation on any
// change but to metadata and status (status is compared only when a
// status subresource is not there to keep it; then mergeUpdate has copied
// it over already, so it compares equal).
func customBodyChanged(old, obj *api.CustomObject) bool {
	a, b := maps.Clone(old.Content), maps.Clone(obj.Content)
	if info, ok := api.ResourceFor(obj); ok && hasStatusSubresource(info) {
		delete(a, "status")
		delete(b, "status")
	}
	return !equality.Semantic.DeepEqual(a, b)
}
