package crd

import (
	"context"
	"maps"
	"reflect"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// PrepareForCreate is the strategy's create preparation: with a status
// subresource a create cannot set status, and generation starts at 1.
func (v *Version) PrepareForCreate(ctx context.Context, obj map[string]any) {
	v.strategy.PrepareForCreate(ctx, wrap(obj))
}

// PrepareForUpdate is the strategy's update preparation: with a status
// subresource status is kept from old, and any change outside metadata
// increments generation.
func (v *Version) PrepareForUpdate(ctx context.Context, obj, old map[string]any) {
	v.strategy.PrepareForUpdate(ctx, wrap(obj), wrap(old))
}

// PrepareForStatusUpdate is the status strategy's preparation: obj becomes
// a copy of old with obj's status and managedFields, so a status write
// changes nothing else. old is not changed.
func (v *Version) PrepareForStatusUpdate(ctx context.Context, obj, old map[string]any) {
	u := wrap(obj)
	v.statusStrategy.PrepareForUpdate(ctx, u, wrap(old))
	// Upstream replaces the Unstructured's map; the caller holds the old one.
	if reflect.ValueOf(u.Object).UnsafePointer() != reflect.ValueOf(obj).UnsafePointer() {
		clear(obj)
		maps.Copy(obj, u.Object)
	}
}

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

// Warnings are the strategy's warnings for a create (old nil) or update:
// finalizer names that are not domain-qualified, new ones only on update.
func (v *Version) Warnings(ctx context.Context, obj, old map[string]any) []string {
	if old == nil {
		return v.strategy.WarningsOnCreate(ctx, wrap(obj))
	}
	return v.strategy.WarningsOnUpdate(ctx, wrap(obj), wrap(old))
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
