package crd

import (
	"context"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/registry/customresourcedefinition"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// The CRD registry's own strategies: they hold the create/update/status
// rules (status reset, generation, storedVersions, disabled-field dropping)
// and call apis/apiextensions/validation, so nothing here repeats them.
var (
	crdStrategy       = customresourcedefinition.NewStrategy(scheme)
	crdStatusStrategy = customresourcedefinition.NewStatusStrategy(scheme)
)

// Default applies the v1 defaults the apiserver's decoder applies to every
// CRD it reads (SetObjectDefaults_CustomResourceDefinition: singular and
// listKind names, conversion strategy None, status.storedVersions from the
// storage version, webhook service port 443).
func Default(crd *apiextensionsv1.CustomResourceDefinition) {
	scheme.Default(crd)
}

// PrepareForCreate does what the CRD strategy does before validating a
// create: it clears status, sets generation 1 and records the storage
// version in status.storedVersions.
func PrepareForCreate(ctx context.Context, crd *apiextensionsv1.CustomResourceDefinition) error {
	in, err := toInternal(crd)
	if err != nil {
		return err
	}
	crdStrategy.PrepareForCreate(ctx, in)
	return fromInternal(in, crd)
}

// Validate is create validation (validation.ValidateCustomResourceDefinition):
// metadata and names, group, scope, versions with exactly one storage
// version, structural schemas, defaults, list types, CEL rule compilation
// and cost, subresources, printer columns, selectable fields, conversion.
// Callers should Default first, as the apiserver's decoder does.
func Validate(ctx context.Context, crd *apiextensionsv1.CustomResourceDefinition) field.ErrorList {
	in, err := toInternal(crd)
	if err != nil {
		return field.ErrorList{field.InternalError(nil, err)}
	}
	return crdStrategy.Validate(ctx, in)
}

// ValidateUpdate is update validation
// (validation.ValidateCustomResourceDefinitionUpdate): create's rules,
// relaxed or tightened by what old already had (ratcheting of schema rules,
// immutable names once Established, scope immutability, stored versions).
func ValidateUpdate(ctx context.Context, crd, old *apiextensionsv1.CustomResourceDefinition) field.ErrorList {
	return validateUpdate(ctx, crd, old, crdStrategy.ValidateUpdate)
}

// ValidateStatusUpdate is the status subresource's validation
// (validation.ValidateUpdateCustomResourceDefinitionStatus): metadata and
// status only.
func ValidateStatusUpdate(ctx context.Context, crd, old *apiextensionsv1.CustomResourceDefinition) field.ErrorList {
	return validateUpdate(ctx, crd, old, crdStatusStrategy.ValidateUpdate)
}

func validateUpdate(ctx context.Context, crd, old *apiextensionsv1.CustomResourceDefinition, validate func(context.Context, runtime.Object, runtime.Object) field.ErrorList) field.ErrorList {
	in, err := toInternal(crd)
	if err != nil {
		return field.ErrorList{field.InternalError(nil, err)}
	}
	oldIn, err := toInternal(old)
	if err != nil {
		return field.ErrorList{field.InternalError(nil, err)}
	}
	return validate(ctx, in, oldIn)
}
