package api

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// CustomObject is one custom resource: a kind that a
// CustomResourceDefinition serves. Its metadata is typed, as every kind's
// is, so the registry, the garbage collector and the namespace controller
// treat it like a built-in; the rest of its body is kept as JSON decodes
// it, in unstructured's value types (int64, float64, string, bool, nil,
// []any, map[string]any), which is what the CRD's schema machinery reads.
type CustomObject struct {
	TypeMeta
	ObjectMeta
	// Content is every top-level field but kind, apiVersion and metadata.
	Content map[string]any
}

// CustomObjectList is the list of one custom resource.
type CustomObjectList struct {
	TypeMeta `json:",inline"`
	ListMeta `json:"metadata,omitempty"`
	Items    []CustomObject `json:"items"`
}

// MarshalJSON writes kind, apiVersion and metadata first, as every stored
// value begins (the registry splices resourceVersions in there), then the
// other fields in key order.
func (o CustomObject) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(`{"kind":`)
	k, _ := json.Marshal(o.Kind)
	b.Write(k)
	b.WriteString(`,"apiVersion":`)
	v, _ := json.Marshal(o.APIVersion)
	b.Write(v)
	b.WriteString(`,"metadata":`)
	m, err := json.Marshal(&o.ObjectMeta)
	if err != nil {
		return nil, err
	}
	b.Write(m)
	keys := make([]string, 0, len(o.Content))
	for k := range o.Content {
		if k != "kind" && k != "apiVersion" && k != "metadata" {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		kb, _ := json.Marshal(k)
		vb, err := json.Marshal(o.Content[k])
		if err != nil {
			return nil, fmt.Errorf("api: %s: field %q: %w", o.Kind, k, err)
		}
		b.WriteByte(',')
		b.Write(kb)
		b.WriteByte(':')
		b.Write(vb)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// UnmarshalJSON reads any JSON object; what the CRD's schema allows is
// settled later, by pruning and validation, as Kubernetes does.
func (o *CustomObject) UnmarshalJSON(data []byte) error {
	var m map[string]any
	if err := utiljson.Unmarshal(data, &m); err != nil {
		return err
	}
	if m == nil {
		return fmt.Errorf("api: a custom resource must be a JSON object")
	}
	return o.FromMap(m)
}

// FromMap sets o from an unstructured object; m is not kept.
func (o *CustomObject) FromMap(m map[string]any) error {
	*o = CustomObject{}
	for _, f := range []struct {
		name string
		to   *string
	}{{"kind", &o.Kind}, {"apiVersion", &o.APIVersion}} {
		switch v := m[f.name].(type) {
		case string:
			*f.to = v
		case nil:
		default:
			return fmt.Errorf("%s: expected string, got %T", f.name, v)
		}
	}
	if md, ok := m["metadata"]; ok && md != nil {
		if _, isMap := md.(map[string]any); !isMap {
			return fmt.Errorf("metadata: expected object, got %T", md)
		}
		j, err := json.Marshal(md)
		if err != nil {
			return err
		}
		if err := json.Unmarshal(j, &o.ObjectMeta); err != nil {
			return fmt.Errorf("metadata: %w", err)
		}
	}
	o.Content = make(map[string]any, len(m))
	for k, v := range m {
		if k != "kind" && k != "apiVersion" && k != "metadata" {
			o.Content[k] = v
		}
	}
	return nil
}

// ToMap is o as an unstructured object, metadata included, for the schema
// machinery; it shares Content's values.
func (o *CustomObject) ToMap() (map[string]any, error) {
	j, err := json.Marshal(&o.ObjectMeta)
	if err != nil {
		return nil, err
	}
	var md map[string]any
	if err := utiljson.Unmarshal(j, &md); err != nil {
		return nil, err
	}
	m := make(map[string]any, len(o.Content)+3)
	for k, v := range o.Content {
		m[k] = v
	}
	m["kind"], m["apiVersion"], m["metadata"] = o.Kind, o.APIVersion, md
	return m, nil
}

// CustomSchema is what a CRD's version asks of its custom resources:
// impl/crd's compiled version implements it with Kubernetes' own pruning,
// defaulting, OpenAPI and CEL validation.
type CustomSchema interface {
	// Prepare prunes the fields the schema does not know and applies its
	// defaults, in place; it returns the paths it pruned.
	Prepare(obj map[string]any) (unknownFields []string, err error)
	Validate(ctx context.Context, obj map[string]any) field.ErrorList
	ValidateUpdate(ctx context.Context, obj, old map[string]any) field.ErrorList
	// ValidateStatusUpdate is the status subresource's: metadata and
	// status, against the status schema.
	ValidateStatusUpdate(ctx context.Context, obj, old map[string]any) field.ErrorList
}

// CustomResource is one resource a CRD serves. Info.Version is the storage
// version; Served lists every served version, in the CRD's order.
type CustomResource struct {
	Info   ResourceInfo
	Served []string
	// Schemas has one entry per served version.
	Schemas map[string]CustomSchema
	// Extra is the registrant's own, for what the apiserver needs beyond
	// the table (printer columns, OpenAPI).
	Extra any
	// Terminating: the CRD is being deleted, and no custom resource may be
	// created meanwhile.
	Terminating bool
}

// ServesVersion says whether version is one of r's served versions.
func (r CustomResource) ServesVersion(version string) bool { return slices.Contains(r.Served, version) }

// decodeCustom decodes a custom resource's body. Fields are not checked
// against a Go type: the CRD's schema prunes and validates them later. The
// kind must be the resource's, and the apiVersion expected's (the
// request's version), as upstream accepts only the URL's. strict are the
// body's duplicate fields.
func decodeCustom(m map[string]any, j []byte, c *CustomObject, expected TypeMeta) (strict []error, err error) {
	strict = duplicateFields(j)
	// Numbers as unstructured has them (int64, float64), which the
	// schema machinery reads; m's are json.Numbers.
	if err := c.UnmarshalJSON(j); err != nil {
		return nil, err
	}
	if c.Kind == "" {
		c.Kind = expected.Kind
	}
	if c.APIVersion == "" {
		c.APIVersion = expected.APIVersion
	}
	if c.APIVersion != expected.APIVersion {
		return nil, fmt.Errorf("the API version in the data (%s) does not match the expected API version (%s)", c.APIVersion, expected.APIVersion)
	}
	if c.Kind != expected.Kind {
		// Upstream decodes custom resources as unstructured, kind and all,
		// and its validator refuses the kind: 422.
		group, _, _ := strings.Cut(expected.APIVersion, "/")
		return nil, NewInvalid(GroupKind{Group: group, Kind: expected.Kind}, c.Name,
			FieldErrors{FieldInvalid("kind", c.Kind, "must be "+expected.Kind)})
	}
	return strict, nil
}

// schemaOf is the schema of the version c is written at.
func schemaOf(c *CustomObject) (CustomSchema, bool) {
	e, ok := customByKind(c.Kind)
	if !ok {
		return nil, false
	}
	_, version, _ := strings.Cut(c.APIVersion, "/")
	s, ok := e.res.Schemas[version]
	return s, ok && s != nil
}

// defaultCustom prunes and defaults c by its version's schema, as the
// apiserver does when it decodes a custom resource.
func defaultCustom(c *CustomObject) {
	_, _ = PrepareCustom(c) // a malformed body is validation's to answer
}

// PrepareCustom prunes and defaults c by the schema of its version and
// returns the paths of the unknown fields it pruned, for the request's
// fieldValidation.
func PrepareCustom(c *CustomObject) ([]string, error) {
	s, ok := schemaOf(c)
	if !ok {
		return nil, nil
	}
	m, err := c.ToMap()
	if err != nil {
		return nil, err
	}
	unknown, err := s.Prepare(m)
	if err != nil {
		return nil, err
	}
	meta := c.ObjectMeta
	if err := c.FromMap(m); err != nil {
		return nil, err
	}
	c.ObjectMeta = meta // pruning does not touch what metadata is typed as
	return unknown, nil
}

// validateCustom checks c against its version's schema; old is nil on
// create. status says the write is through the status subresource.
func validateCustom(e *errs, c, old *CustomObject, status bool) {
	s, ok := schemaOf(c)
	if !ok {
		return
	}
	m, err := c.ToMap()
	if err != nil {
		e.invalid("", "", err.Error())
		return
	}
	if c.Name == "" && c.GenerateName != "" {
		// The registry validates before it names the object (and then each
		// name it tries); the CRD's validator wants a name, which upstream
		// has generated by then.
		m["metadata"].(map[string]any)["name"] = c.GenerateName + "x"
	}
	if old == nil {
		e.addList(s.Validate(context.Background(), m))
		return
	}
	om, err := old.ToMap()
	if err != nil {
		e.invalid("", "", err.Error())
		return
	}
	validate := s.ValidateUpdate
	if status {
		validate = s.ValidateStatusUpdate
	}
	e.addList(validate(context.Background(), m, om))
}
