package crd

import (
	"context"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Validate is create validation, as the strategy runs it: apiVersion and
// kind, ObjectMeta (a name, and a namespace when namespaced, must already
// be set), the OpenAPI schema (validation.ValidateCustomResource), the
// scale subresource's paths, ObjectMeta of embedded resources, list-type
// invariants, then the CEL rules without oldSelf, under
// celconfig.RuntimeCELCostBudget. CEL is skipped, with a note, when the
// schema errors already make the object unfit for it.
func (v *Version) Validate(ctx context.Context, obj map[string]any) field.ErrorList {
	return v.strategy.Validate(ctx, wrap(obj))
}

// ValidateUpdate is update validation: as Validate, with ObjectMeta update
// rules, ratcheting (errors old already had in an unchanged field are
// forgiven) and the CEL transition rules that compare with oldSelf.
func (v *Version) ValidateUpdate(ctx context.Context, obj, old map[string]any) field.ErrorList {
	return v.strategy.ValidateUpdate(ctx, wrap(obj), wrap(old))
}

// ValidateStatusUpdate is the status subresource's validation: ObjectMeta
// update rules, status against the status schema only (with paths under
// status), scale status paths, list types, and all CEL rules, with oldSelf.
func (v *Version) ValidateStatusUpdate(ctx context.Context, obj, old map[string]any) field.ErrorList {
	return v.statusStrategy.ValidateUpdate(ctx, wrap(obj), wrap(old))
}

// FieldSet is what field selectors match for obj: metadata.name,
// metadata.namespace when namespaced, and the version's selectableFields
// as strings ("" when absent).
func (v *Version) FieldSet(obj map[string]any) (fields.Set, error) {
	_, set, err := v.strategy.GetAttrs(wrap(obj))
	return set, err
}

func wrap(obj map[string]any) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: obj}
}
