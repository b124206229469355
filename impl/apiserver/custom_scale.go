package apiserver

import (
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/converge-dev/converge/impl/api"
)

// The scale subresource of a custom resource, as its CRD maps it: Scale's
// spec.replicas is the field at specReplicasPath, its status.replicas the
// one at statusReplicasPath, its status.selector the string at
// labelSelectorPath (upstream's customresource scale storage).

// customScale is the scale mapping of c's kind, nil when its storage
// version has no scale subresource.
func customScale(c *api.CustomObject) *apiextensionsv1.CustomResourceSubresourceScale {
	info, ok := api.ResourceFor(c)
	if !ok {
		return nil
	}
	cr, ok := api.LookupCustom(info.Resource)
	k, isCRD := cr.Extra.(*apiextensionsv1.CustomResourceDefinition)
	if !ok || !isCRD {
		return nil
	}
	for _, v := range k.Spec.Versions {
		if v.Name == info.Version && v.Subresources != nil {
			return v.Subresources.Scale
		}
	}
	return nil
}

// jsonPathFields is a JSONPath such as ".spec.replicas" as nested field names.
func jsonPathFields(path string) []string { return strings.Split(strings.TrimPrefix(path, "."), ".") }

// customScaleOf fills sc from c by the CRD's mapping.
func customScaleOf(c *api.CustomObject, sc *api.Scale) {
	s := customScale(c)
	if s == nil {
		return
	}
	if n, ok, _ := unstructured.NestedInt64(c.Content, jsonPathFields(s.SpecReplicasPath)...); ok {
		sc.Spec.Replicas = int32(n)
	}
	if n, ok, _ := unstructured.NestedInt64(c.Content, jsonPathFields(s.StatusReplicasPath)...); ok {
		sc.Status.Replicas = int32(n)
	}
	if s.LabelSelectorPath != nil {
		if sel, ok, _ := unstructured.NestedString(c.Content, jsonPathFields(*s.LabelSelectorPath)...); ok {
			sc.Status.Selector = sel
		}
	}
}

// setCustomReplicas writes n at the CRD's specReplicasPath.
func setCustomReplicas(c *api.CustomObject, n int32) bool {
	s := customScale(c)
	if s == nil {
		return false
	}
	if c.Content == nil {
		c.Content = map[string]any{}
	}
	return unstructured.SetNestedField(c.Content, int64(n), jsonPathFields(s.SpecReplicasPath)...) == nil
}

func toPathElements(names []string) []any {
	out := make([]any, len(names))
	for i, n := range names {
		out[i] = n
	}
	return out
}
