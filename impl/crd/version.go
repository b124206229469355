package crd

import (
	"context"
	"fmt"

	"k8s.io/apiextensions-apiserver/pkg/apihelpers"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apiextensions-apiserver/pkg/registry/customresource"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/registry/rest"
)

// Version is one version of a CRD compiled for serving custom resources:
// what kube-apiserver's crdHandler builds per version in
// getOrCreateServingInfoFor. The exported fields are read-only.
type Version struct {
	// Kind, ListKind and Resource come from status.acceptedNames, as
	// upstream serves them, or from spec.names while no controller has
	// accepted names yet.
	Kind       schema.GroupVersionKind
	ListKind   schema.GroupVersionKind
	Resource   schema.GroupVersionResource
	Namespaced bool
	Served     bool
	Storage    bool

	// Schema is the structural schema with defaults pruned, as served; nil
	// when the version has none (only possible with preserveUnknownFields).
	Schema *structuralschema.Structural
	// Status and Scale are the version's subresources, nil when disabled.
	Status *apiextensionsv1.CustomResourceSubresourceStatus
	Scale  *apiextensionsv1.CustomResourceSubresourceScale

	preserveUnknownFields bool
	strategy              strategy
	statusStrategy        strategy
	columns               []apiextensionsv1.CustomResourceColumnDefinition
	table                 rest.TableConvertor
}

// strategy is the part of upstream's (unexported) custom resource strategy
// that a request needs; both the main and the status strategy provide it.
type strategy interface {
	Validate(ctx context.Context, obj runtime.Object) field.ErrorList
	ValidateUpdate(ctx context.Context, obj, old runtime.Object) field.ErrorList
	GetAttrs(obj runtime.Object) (labels.Set, fields.Set, error)
}

// Compile builds the named version of crd the way the apiextensions
// apiserver does before serving it. crd should have passed Validate: a
// schema that is not structural is an error here, as it is upstream.
func Compile(crd *apiextensionsv1.CustomResourceDefinition, version string) (*Version, error) {
	var def *apiextensionsv1.CustomResourceDefinitionVersion
	for i := range crd.Spec.Versions {
		if crd.Spec.Versions[i].Name == version {
			def = &crd.Spec.Versions[i]
		}
	}
	if def == nil {
		return nil, fmt.Errorf("crd: version %q not found in %q", version, crd.Name)
	}
	v := &Version{
		Namespaced:            crd.Spec.Scope == apiextensionsv1.NamespaceScoped,
		Served:                def.Served,
		Storage:               def.Storage,
		preserveUnknownFields: crd.Spec.PreserveUnknownFields,
	}
	names := crd.Status.AcceptedNames
	if names.Kind == "" || names.Plural == "" {
		names = crd.Spec.Names
	}
	v.Kind = schema.GroupVersionKind{Group: crd.Spec.Group, Version: version, Kind: names.Kind}
	v.ListKind = v.Kind.GroupVersion().WithKind(names.ListKind)
	if names.ListKind == "" {
		v.ListKind.Kind = names.Kind + "List" // the v1 default, for an undefaulted CRD
	}
	v.Resource = v.Kind.GroupVersion().WithResource(names.Plural)

	internal, err := internalSchema(crd, version)
	if err != nil {
		return nil, err
	}
	if err := v.compileSchema(internal); err != nil {
		return nil, err
	}
	if err := v.compileStrategies(crd, def, internal); err != nil {
		return nil, err
	}
	v.compileTable(def)
	return v, nil
}

func internalSchema(crd *apiextensionsv1.CustomResourceDefinition, version string) (*apiextensions.JSONSchemaProps, error) {
	val, err := apihelpers.GetSchemaForVersion(crd, version)
	if err != nil || val == nil {
		return nil, err
	}
	internal := &apiextensions.CustomResourceValidation{}
	if err := apiextensionsv1.Convert_v1_CustomResourceValidation_To_apiextensions_CustomResourceValidation(val, internal, nil); err != nil {
		return nil, fmt.Errorf("crd: converting the %s schema of %q to the internal version: %w", version, crd.Name, err)
	}
	return internal.OpenAPIV3Schema, nil
}

// compileSchema builds the structural schema as the handler does: a deep
// copy, with defaults pruned so that defaulting never adds unknown fields.
func (v *Version) compileSchema(internal *apiextensions.JSONSchemaProps) error {
	s, err := structuralschema.NewStructural(internal)
	if v.preserveUnknownFields {
		v.Schema = s // upstream tolerates a non-structural schema here
		return nil
	}
	if err != nil {
		return fmt.Errorf("crd: %s: schema is not structural: %w", v.Kind, err)
	}
	if s == nil {
		return nil
	}
	s = s.DeepCopy()
	if err := structuraldefaulting.PruneDefaults(s); err != nil {
		return fmt.Errorf("crd: %s: pruning defaults: %w", v.Kind, err)
	}
	v.Schema = s
	return nil
}

// compileStrategies builds the OpenAPI validators (the whole schema, and
// status alone for the status subresource) and upstream's custom resource
// strategies, which compile the CEL rules once, with celconfig.PerCallLimit.
func (v *Version) compileStrategies(crd *apiextensionsv1.CustomResourceDefinition, def *apiextensionsv1.CustomResourceDefinitionVersion, internal *apiextensions.JSONSchemaProps) error {
	validator, _, err := apiservervalidation.NewSchemaValidator(internal)
	if err != nil {
		return fmt.Errorf("crd: %s: %w", v.Kind, err)
	}
	subresources, err := apihelpers.GetSubresourcesForVersion(crd, def.Name)
	if err != nil {
		return err
	}
	var statusSpec *apiextensions.CustomResourceSubresourceStatus
	var statusValidator apiservervalidation.SchemaValidator
	if subresources != nil && subresources.Status != nil {
		v.Status = subresources.Status.DeepCopy()
		statusSpec = &apiextensions.CustomResourceSubresourceStatus{}
		if internal != nil {
			if statusSchema, ok := internal.Properties["status"]; ok {
				if statusValidator, _, err = apiservervalidation.NewSchemaValidator(&statusSchema); err != nil {
					return fmt.Errorf("crd: %s status: %w", v.Kind, err)
				}
			}
		}
	}
	var scaleSpec *apiextensions.CustomResourceSubresourceScale
	if subresources != nil && subresources.Scale != nil {
		v.Scale = subresources.Scale.DeepCopy()
		scaleSpec = &apiextensions.CustomResourceSubresourceScale{}
		if err := apiextensionsv1.Convert_v1_CustomResourceSubresourceScale_To_apiextensions_CustomResourceSubresourceScale(subresources.Scale, scaleSpec, nil); err != nil {
			return fmt.Errorf("crd: %s scale: %w", v.Kind, err)
		}
	}
	s := customresource.NewStrategy(typer, v.Namespaced, v.Kind, validator, statusValidator, v.Schema, statusSpec, scaleSpec, def.SelectableFields)
	v.strategy = s
	v.statusStrategy = customresource.NewStatusStrategy(s)
	return nil
}
