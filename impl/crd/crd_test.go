package crd

import (
	"context"
	"slices"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

func TestDefault(t *testing.T) {
	crd := widgetCRD(t) // Default has run
	if crd.Spec.Conversion == nil || crd.Spec.Conversion.Strategy != apiextensionsv1.NoneConverter {
		t.Errorf("conversion = %+v, want strategy None", crd.Spec.Conversion)
	}
	if crd.Spec.Names.ListKind != "WidgetList" {
		t.Errorf("listKind = %q, want WidgetList", crd.Spec.Names.ListKind)
	}
	if !slices.Equal(crd.Status.StoredVersions, []string{"v1"}) {
		t.Errorf("storedVersions = %v, want [v1]", crd.Status.StoredVersions)
	}
}

func TestValidateAcceptsWidget(t *testing.T) {
	ctx := context.Background()
	crd := widgetCRD(t)
	crd.Status.StoredVersions = []string{"v1beta1"} // a create cannot set status
	if err := PrepareForCreate(ctx, crd); err != nil {
		t.Fatal(err)
	}
	if crd.Generation != 1 || !slices.Equal(crd.Status.StoredVersions, []string{"v1"}) {
		t.Errorf("after PrepareForCreate: generation %d, storedVersions %v; want 1, [v1]", crd.Generation, crd.Status.StoredVersions)
	}
	if crd.Spec.Versions[0].Schema == nil || crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"].XValidations[1].Message != "image is immutable" {
		t.Error("PrepareForCreate lost the schema in the round trip through the internal version")
	}
	requireNoErrors(t, Validate(ctx, crd))
}

func TestValidateRefuses(t *testing.T) {
	schema := func(c *apiextensionsv1.CustomResourceDefinition) *apiextensionsv1.JSONSchemaProps {
		return c.Spec.Versions[0].Schema.OpenAPIV3Schema
	}
	for _, tc := range []struct {
		name         string
		mutate       func(*apiextensionsv1.CustomResourceDefinition)
		path, detail string
	}{
		{"no storage version", func(c *apiextensionsv1.CustomResourceDefinition) { c.Spec.Versions[0].Storage = false },
			"spec.versions", "must have exactly one version marked as storage version"},
		{"two storage versions", func(c *apiextensionsv1.CustomResourceDefinition) { c.Spec.Versions[1].Storage = true },
			"spec.versions", "must have exactly one version marked as storage version"},
		{"missing type", func(c *apiextensionsv1.CustomResourceDefinition) {
			spec := schema(c).Properties["spec"]
			replicas := spec.Properties["replicas"]
			replicas.Type = ""
			spec.Properties["replicas"] = replicas
		}, "spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[replicas].type", "Required value: must not be empty for specified object fields"},
		{"bad CEL rule", func(c *apiextensionsv1.CustomResourceDefinition) {
			schema(c).Properties["spec"].XValidations[0].Rule = "self.nope > 1"
		}, "spec.versions[0].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule", "undefined field 'nope'"},
		{"CEL syntax error", func(c *apiextensionsv1.CustomResourceDefinition) {
			schema(c).Properties["spec"].XValidations[0].Rule = "self.replicas <="
		}, "spec.versions[0].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule", "compilation failed"},
		{"default outside enum", func(c *apiextensionsv1.CustomResourceDefinition) {
			spec := schema(c).Properties["spec"]
			size := spec.Properties["size"]
			size.Default = &apiextensionsv1.JSON{Raw: []byte(`"huge"`)}
			spec.Properties["size"] = size
		}, "spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[size].default", `Unsupported value: "huge"`},
		{"name not plural.group", func(c *apiextensionsv1.CustomResourceDefinition) { c.Name = "widget.example.com" },
			"metadata.name", `must be spec.names.plural+"."+spec.group`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			crd := widgetCRD(t)
			tc.mutate(crd)
			requireError(t, Validate(context.Background(), crd), tc.path, tc.detail)
		})
	}
}

func TestValidateUpdate(t *testing.T) {
	ctx := context.Background()
	old := widgetCRD(t)
	if err := PrepareForCreate(ctx, old); err != nil {
		t.Fatal(err)
	}
	old.ResourceVersion = "1"

	crd := old.DeepCopy()
	crd.Spec.Versions[0].AdditionalPrinterColumns = nil
	requireNoErrors(t, ValidateUpdate(ctx, crd, old))

	crd = old.DeepCopy()
	crd.Spec.Group = "other.example.com"
	crd.Name = "widgets.other.example.com"
	requireError(t, ValidateUpdate(ctx, crd, old), "spec.group", "field is immutable")

	// Scope may change until the CRD is Established, as upstream allows.
	crd = old.DeepCopy()
	crd.Spec.Scope = apiextensionsv1.ClusterScoped
	requireNoErrors(t, ValidateUpdate(ctx, crd, old))
	established := old.DeepCopy()
	established.Status.Conditions = []apiextensionsv1.CustomResourceDefinitionCondition{{Type: apiextensionsv1.Established, Status: apiextensionsv1.ConditionTrue}}
	requireError(t, ValidateUpdate(ctx, crd, established), "spec.scope", "field is immutable")

	// v1 leaves storedVersions alone on update; dropping v1 while it is
	// still the storage version is refused.
	crd = old.DeepCopy()
	crd.Status.StoredVersions = []string{"v1beta1"}
	requireError(t, ValidateUpdate(ctx, crd, old), "status.storedVersions", "must have the storage version v1")
}

func TestStatusUpdate(t *testing.T) {
	ctx := context.Background()
	old := widgetCRD(t)
	old.ResourceVersion = "1"
	crd := old.DeepCopy()
	crd.Status.AcceptedNames = apiextensionsv1.CustomResourceDefinitionNames{Plural: "widgets", Singular: "widget", Kind: "Widget", ListKind: "WidgetList"}
	requireNoErrors(t, ValidateStatusUpdate(ctx, crd, old))

	crd.Status.AcceptedNames.Plural = "Bad Plural"
	requireError(t, ValidateStatusUpdate(ctx, crd, old), "status.acceptedNames.plural", "a DNS-1035 label must consist of lower case alphanumeric characters")
}
