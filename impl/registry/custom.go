package registry

import (
	"maps"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/fields"

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

// fieldSetter is what impl/crd's compiled version selects on: the
// strategy's GetAttrs, metadata and the version's selectableFields.
type fieldSetter interface {
	FieldSet(obj map[string]any) (fields.Set, error)
}

// customSelectableField is a getter of one of the CRD's selectableFields
// (as "spec.size" for the JSONPath ".spec.size"), as upstream's field
// label conversion allows them; ok false for any other field.
func customSelectableField(c api.CustomResource, field string) (fieldGetter, bool) {
	k, ok := c.Extra.(*apiextensionsv1.CustomResourceDefinition)
	if !ok {
		return nil, false
	}
	declared := false
	for _, v := range k.Spec.Versions {
		if v.Name != c.Info.Version {
			continue
		}
		for _, f := range v.SelectableFields {
			declared = declared || strings.TrimPrefix(f.JSONPath, ".") == field
		}
	}
	if !declared {
		return nil, false
	}
	return func(o api.Object) string {
		co, ok := o.(*api.CustomObject)
		if !ok {
			return ""
		}
		s, ok := c.Schemas[c.Info.Version].(fieldSetter)
		m, err := co.ToMap()
		if !ok || err != nil {
			return ""
		}
		set, err := s.FieldSet(m)
		if err != nil {
			return ""
		}
		return set[field]
	}, true
}
