package crdgen

import (
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"pgregory.net/rapid"

	"github.com/converge-dev/converge/impl/crd"
)

// formatsCRD has one required string per format crdgen builds.
func formatsCRD(t *testing.T, formats []string) *crd.Version {
	props := map[string]apiextensionsv1.JSONSchemaProps{}
	for _, f := range formats {
		props[f] = apiextensionsv1.JSONSchemaProps{Type: "string", Format: f}
	}
	c := &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "formats.test.converge.dev"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "test.converge.dev",
			Scope: apiextensionsv1.NamespaceScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "formats", Kind: "Format"},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
				Name: "v1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
					Type: "object",
					Properties: map[string]apiextensionsv1.JSONSchemaProps{
						"spec": {Type: "object", Required: formats, Properties: props},
					},
				}},
			}},
		},
	}
	crd.Default(c)
	v, err := crd.Compile(c, "v1")
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestFormatsValidate: every format with a generator draws values the
// apiserver's format checks accept, with no rejection.
func TestFormatsValidate(t *testing.T) {
	formats := []string{"date-time", "date", "duration", "byte", "uuid", "uuid3", "uuid4", "uuid5",
		"ipv4", "ipv6", "cidr", "mac", "hostname", "k8s-long-name", "k8s-short-name", "email", "uri",
		"bsonobjectid", "hexcolor", "rgbcolor", "ssn"}
	for _, f := range formats {
		if formatGen(f) == nil {
			t.Errorf("no generator for %s", f)
		}
	}
	v := formatsCRD(t, formats)
	g := newGen(t, v)
	rapid.Check(t, func(rt *rapid.T) {
		obj := g.draw(rt, "default", "w")
		if errs := g.check(obj); len(errs) > 0 {
			rt.Fatalf("%v", errs)
		}
	})
}
