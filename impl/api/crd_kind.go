package api

import (
	"context"
	"encoding/json"
	"errors"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/converge-dev/converge/impl/crd"
)

// CustomResourceDefinition is apiextensions.k8s.io/v1
// CustomResourceDefinition. Its spec and status are the apiextensions
// module's own types; its definition is checked, defaulted and compiled by
// that module's code, through impl/crd.
type CustomResourceDefinition struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty"`
	Spec       apiextensionsv1.CustomResourceDefinitionSpec   `json:"spec"`
	Status     apiextensionsv1.CustomResourceDefinitionStatus `json:"status,omitempty"`
}

// CustomResourceDefinitionList is apiextensions.k8s.io/v1
// CustomResourceDefinitionList.
type CustomResourceDefinitionList struct {
	TypeMeta `json:",inline"`
	ListMeta `json:"metadata,omitempty"`
	Items    []CustomResourceDefinition `json:"items"`
}



// APIExtensionsGroup is the group of CustomResourceDefinitions.
const APIExtensionsGroup = "apiextensions.k8s.io"

var crdEntries = []entry{
	{ResourceInfo{Resource: "customresourcedefinitions", Singular: "customresourcedefinition",
		Kind: "CustomResourceDefinition", ListKind: "CustomResourceDefinitionList",
		Group: APIExtensionsGroup, Version: "v1", ShortNames: []string{"crd", "crds"}, Verbs: standardVerbs,
		Categories: []string{"api-extensions"}, Subresources: []Subresource{statusOf("CustomResourceDefinition", APIExtensionsGroup)}},
		func() Object { return &CustomResourceDefinition{} }, func() ListObject { return &CustomResourceDefinitionList{} }},
}

// ToKube is c as the apiextensions module's type.
func (c *CustomResourceDefinition) ToKube() (*apiextensionsv1.CustomResourceDefinition, error) {
	j, err := json.Marshal(c)
	if err != nil {
		return nil, err
	}
	out := &apiextensionsv1.CustomResourceDefinition{}
	if err := json.Unmarshal(j, out); err != nil {
		return nil, err
	}
	return out, nil
}

// defaultCRD fills what the apiextensions module defaults.
func defaultCRD(c *CustomResourceDefinition) {
	k, err := c.ToKube()
	if err != nil {
		return
	}
	crd.Default(k)
	c.Spec = k.Spec
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
	k, err := c.ToKube()
	if err != nil {
		e.invalid("", "", err.Error())
		return
	}
	var list field.ErrorList
	if old == nil {
		list = crd.Validate(context.Background(), k)
	} else {
		ok, err := old.ToKube()
		if err != nil {
			e.invalid("", "", err.Error())
			return
		}
		list = crd.ValidateUpdate(context.Background(), k, ok)
	}
	e.addList(list)
}

// prepareCRDForCreate is the CRD strategy's: status cleared, the storage
// version recorded in status.storedVersions.
func prepareCRDForCreate(c *CustomResourceDefinition) {
	k, err := c.ToKube()
	if err != nil {
		return
	}
	if crd.PrepareForCreate(context.Background(), k) == nil {
		c.Spec, c.Status = k.Spec, k.Status
	}
}

// validateCRDStatus checks a status write as the CRD status strategy does
// (metadata, conditions, accepted and stored versions).
func validateCRDStatus(e *errs, c, old *CustomResourceDefinition) {
	k, err1 := c.ToKube()
	oldK, err2 := old.ToKube()
	if err1 != nil || err2 != nil {
		e.invalid("", "", errors.Join(err1, err2).Error())
		return
	}
	e.addList(crd.ValidateStatusUpdate(context.Background(), k, oldK))
}
