package crd

import (
	"fmt"

	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	schemaobjectmeta "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/objectmeta"
	structuralpruning "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Prepare is what kube-apiserver's decoder does to a custom resource in a
// request body, in its order: the schema coercion of crdHandler's
// unstructuredSchemaCoercer (ObjectMeta round-trip, pruning of unknown
// fields, removal of nulls the schema does not allow, coercion of embedded
// resources), then structural defaulting. It returns the paths of the
// fields it dropped, sorted within each step, for fieldValidation=Warn or
// Strict. An error means the body is malformed (a 400 upstream); a
// *field.Error is returned as is. A body in another version of the group
// must be prepared by that version's Version and converted first, as
// upstream's codec decodes, defaults, then converts.
func (v *Version) Prepare(obj map[string]any) (unknownFields []string, err error) {
	unknownFields, err = v.coerce(obj)
	if err != nil {
		return nil, err
	}
	v.defaults(obj)
	return unknownFields, nil
}

// coerce calls, in unstructuredSchemaCoercer.apply's order, the functions it
// calls (customresource_handler.go; that type is unexported), with the
// flags the request decoder sets: malformed metadata is an error, and the
// unknown fields' paths are returned.
func (v *Version) coerce(obj map[string]any) ([]string, error) {
	kind, foundKind, err := unstructured.NestedString(obj, "kind")
	if err != nil {
		return nil, err
	}
	apiVersion, foundAPIVersion, err := unstructured.NestedString(obj, "apiVersion")
	if err != nil {
		return nil, err
	}
	objectMeta, foundObjectMeta, unknown, err := schemaobjectmeta.GetObjectMetaWithOptions(obj, schemaobjectmeta.ObjectMetaOptions{
		ReturnUnknownFieldPaths: true,
	})
	if err != nil {
		return nil, err
	}
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil {
		return nil, err
	}

	// Upstream coerces only its own group and kind (other objects, delete
	// options say, share the decoder), with the schema of the object's
	// version. A Version holds one schema, so it touches only objects of its
	// own version; validation rejects any other apiVersion or kind.
	if gv.WithKind(kind) == v.Kind {
		if !v.preserveUnknownFields {
			unknown = append(unknown, structuralpruning.PruneWithOptions(obj, v.Schema, true, structuralschema.UnknownFieldPathOptions{
				TrackUnknownFieldPaths: true,
			})...)
			structuraldefaulting.PruneNonNullableNullsWithoutDefaults(obj, v.Schema)
		}
		fieldErr, paths := schemaobjectmeta.CoerceWithOptions(nil, obj, v.Schema, false, schemaobjectmeta.CoerceOptions{
			ReturnUnknownFieldPaths: true,
		})
		if fieldErr != nil {
			return nil, fieldErr
		}
		unknown = append(unknown, paths...)
	}

	// Restore the implicit meta fields, starting clean: this is what drops
	// unknown fields inside metadata.
	u := unstructured.Unstructured{Object: obj}
	if foundKind {
		u.SetKind(kind)
	}
	if foundAPIVersion {
		u.SetAPIVersion(apiVersion)
	}
	if foundObjectMeta {
		if err := schemaobjectmeta.SetObjectMeta(obj, objectMeta); err != nil {
			return nil, fmt.Errorf("crd: %s: setting metadata: %w", v.Kind, err)
		}
	}
	return unknown, nil
}

// defaults is upstream's unstructuredDefaulter: structural defaulting for
// objects of this kind (and, as in coerce, this version), nothing else.
func (v *Version) defaults(obj map[string]any) {
	u := unstructured.Unstructured{Object: obj}
	if u.GroupVersionKind() != v.Kind {
		return
	}
	structuraldefaulting.Default(obj, v.Schema)
}
