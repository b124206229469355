package api

import (
	"context"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/converge-dev/converge/impl/crd"
)

// CustomResourceDefinition is the apiextensions module's own type; its
// definition is checked, defaulted and compiled by that module's code,
// through impl/crd.
type CustomResourceDefinition = apiextensionsv1.CustomResourceDefinition

// CustomResourceDefinitionList is the apiextensions module's own type.
type CustomResourceDefinitionList = apiextensionsv1.CustomResourceDefinitionList

// APIExtensionsGroup is the group of CustomResourceDefinitions.
const APIExtensionsGroup = "apiextensions.k8s.io"

var crdEntries = []entry{
	{ResourceInfo{Resource: "customresourcedefinitions", Singular: "customresourcedefinition",
		Kind: "CustomResourceDefinition", ListKind: "CustomResourceDefinitionList",
		Group: APIExtensionsGroup, Version: "v1", ShortNames: []string{"crd", "crds"}, Verbs: standardVerbs,
		Categories: []string{"api-extensions"}, Subresources: []Subresource{statusOf("CustomResourceDefinition", APIExtensionsGroup)}},
		func() Object { return &CustomResourceDefinition{} }, func() ListObject { return &CustomResourceDefinitionList{} }},
}

// defaultCRD fills what the apiextensions module defaults.
func defaultCRD(c *CustomResourceDefinition) {
	crd.Default(c)
	if len(c.Status.StoredVersions) == 0 {
		// What the strategy's PrepareForCreate records, needed before
		// validation.
		for _, v := range c.Spec.Versions {
			if v.Storage {
				c.Status.StoredVersions = []string{v.Name}
			}
		}
	}
}

// validateCRD checks a definition as the apiextensions apiserver does;
// old is nil on create.
func validateCRD(e *errs, c, old *CustomResourceDefinition) {
	var list field.ErrorList
	if old == nil {
		list = crd.Validate(context.Background(), c.DeepCopy())
	} else {
		list = crd.ValidateUpdate(context.Background(), c.DeepCopy(), old.DeepCopy())
	}
	e.addList(list)
}

// prepareCRDForCreate is the CRD strategy's: status cleared, the storage
// version recorded in status.storedVersions.
func prepareCRDForCreate(c *CustomResourceDefinition) {
	k := c.DeepCopy()
	if crd.PrepareForCreate(context.Background(), k) == nil {
		c.Spec, c.Status = k.Spec, k.Status
	}
}

// validateCRDStatus checks a status write as the CRD status strategy does
// (metadata, conditions, accepted and stored versions).
func validateCRDStatus(e *errs, c, old *CustomResourceDefinition) {
	e.addList(crd.ValidateStatusUpdate(context.Background(), c.DeepCopy(), old.DeepCopy()))
}
