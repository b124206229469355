package apiserver

import (
	"encoding/json"
	"reflect"
	"strings"
	"sync"

	"github.com/converge-dev/converge/impl/api"
)

// jsonField is one field of a Go struct as encoding/json sees it, with
// embedded inline structs flattened.
type jsonField struct {
	name      string
	typ       reflect.Type
	omitempty bool
	owner     reflect.Type // the struct declaring it, for the fieldExts key
	tag       reflect.StructTag
}

// jsonFieldsOf lists t's JSON fields in declaration order.
func jsonFieldsOf(t reflect.Type) []jsonField {
	if cached, ok := fieldTables.Load(t); ok {
		return cached.([]jsonField)
	}
	out := collectJSONFields(t)
	fieldTables.Store(t, out)
	return out
}

// fieldTables caches jsonFieldsOf per type: field ownership walks them on
// every write.
var fieldTables sync.Map // reflect.Type -> []jsonField

func collectJSONFields(t reflect.Type) []jsonField {
	var out []jsonField
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" || (!f.IsExported() && !f.Anonymous) {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		ft := f.Type
		if f.Anonymous && (name == "" || strings.Contains(opts, "inline")) && ft.Kind() == reflect.Struct {
			out = append(out, collectJSONFields(ft)...)
			continue
		}
		if name == "" {
			name = f.Name
		}
		out = append(out, jsonField{name: name, typ: ft, omitempty: strings.Contains(opts, "omitempty"), owner: t, tag: f.Tag})
	}
	return out
}

// fieldOf finds the JSON field name of struct type t.
func fieldOf(t reflect.Type, name string) (jsonField, bool) {
	for _, f := range jsonFieldsOf(t) {
		if f.name == name {
			return f, true
		}
	}
	return jsonField{}, false
}

func extOf(f jsonField) fieldExt {
	if e, ok := fieldExts[f.owner.Name()+"."+f.name]; ok {
		return e
	}
	return kubeTagExt(f)
}

var (
	timeType      = reflect.TypeFor[api.Time]()
	microTimeType = reflect.TypeFor[api.MicroTime]()
	rawType       = reflect.TypeFor[json.RawMessage]()
)

// metaTypes live in io.k8s.apimachinery.pkg.apis.meta.v1 in Kubernetes.
var metaTypes = map[string]bool{
	"ObjectMeta": true, "ListMeta": true, "OwnerReference": true, "ManagedFieldsEntry": true,
	"Status": true, "StatusDetails": true,
	"StatusCause": true, "DeleteOptions": true, "Preconditions": true, "Time": true, "MicroTime": true, "WatchEvent": true,
}

// kindComponentName names a kind of impl/api's resource table, or its
// list, after its group, as Kubernetes does (apps/v1 StatefulSet is
// io.k8s.api.apps.v1.StatefulSet, policy/v1 PodDisruptionBudget
// io.k8s.api.policy.v1.PodDisruptionBudget).
func kindComponentName(t reflect.Type) (string, bool) {
	if t.Kind() != reflect.Struct || t.PkgPath() != reflect.TypeFor[api.Pod]().PkgPath() {
		return "", false
	}
	tm, ok := api.TypeMetaFor(reflect.New(t).Interface())
	if !ok {
		return "", false
	}
	group, version, found := strings.Cut(tm.APIVersion, "/")
	switch {
	case !found:
		group, version = "core", tm.APIVersion
	case group == api.APIExtensionsGroup:
		return "", false // the CRD kind has its own package's name
	default:
		group, _, _ = strings.Cut(group, ".")
	}
	return "io.k8s.api." + group + "." + version + "." + t.Name(), true
}

// componentName is Kubernetes' schema name for a Go type of impl/api.
func componentName(t reflect.Type) string {
	n := t.Name()
	if name, ok := kubeComponentName(t); ok {
		return name
	}
	switch {
	case t == rawType:
		return "io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1"
	case metaTypes[n]:
		return "io.k8s.apimachinery.pkg.apis.meta.v1." + n
	}
	if name, ok := kindComponentName(t); ok {
		return name
	}
	switch {
	case strings.HasPrefix(n, "Deployment"), strings.HasPrefix(n, "ReplicaSet"), n == "RollingUpdateDeployment":
		return "io.k8s.api.apps.v1." + n
	case strings.HasPrefix(n, "Scale"):
		return "io.k8s.api.autoscaling.v1." + n
	}
	return "io.k8s.api.core.v1." + n
}

const quantityName = "io.k8s.apimachinery.pkg.api.resource.Quantity"

// schemaGen turns Go types into OpenAPI schemas, one component per named
// struct (and per special scalar Kubernetes names).
type schemaGen struct {
	components map[string]map[string]any
	kube       map[string]bool // components built from k8s.io types
}

func refTo(name string) map[string]any {
	return map[string]any{"$ref": "#/components/schemas/" + name}
}

// schemaFor is the schema of a value of type t: a $ref for named structs,
// inline otherwise.
func (g *schemaGen) schemaFor(t reflect.Type) map[string]any {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if s, ok := g.kubeScalarSchema(t); ok {
		return s
	}
	switch t {
	case timeType, microTimeType, kubeTimeType, kubeMicroTimeType:
		return g.named(t, func() map[string]any { return map[string]any{"type": "string", "format": "date-time"} })
	case rawType:
		return g.named(t, func() map[string]any { return map[string]any{"type": "object"} })
	}
	switch t.Kind() {
	case reflect.String:
		return map[string]any{"type": "string"}
	case reflect.Bool:
		return map[string]any{"type": "boolean"}
	case reflect.Int32:
		return map[string]any{"type": "integer", "format": "int32"}
	case reflect.Int, reflect.Int64:
		return map[string]any{"type": "integer", "format": "int64"}
	case reflect.Float32, reflect.Float64:
		return map[string]any{"type": "number", "format": "double"}
	case reflect.Slice:
		return map[string]any{"type": "array", "items": g.schemaFor(t.Elem())}
	case reflect.Map:
		return map[string]any{"type": "object", "additionalProperties": g.schemaFor(t.Elem())}
	case reflect.Struct:
		return g.named(t, func() map[string]any { return g.structSchema(t) })
	}
	return map[string]any{}
}

// named registers t's component once (before building it, so recursive
// types terminate) and returns a reference to it.
func (g *schemaGen) named(t reflect.Type, build func() map[string]any) map[string]any {
	name := componentName(t)
	if _, ok := g.components[name]; g.supersedes(name, t) || !ok {
		g.components[name] = map[string]any{}
		for k, v := range build() {
			g.components[name][k] = v
		}
	}
	return refTo(name)
}

// writtenButOptional are fields k8s.io/api writes even when empty (no
// omitempty) that Kubernetes' OpenAPI marks optional.
var writtenButOptional = map[string]bool{"Event.reportingComponent": true, "Event.reportingInstance": true}

func (g *schemaGen) structSchema(t reflect.Type) map[string]any {
	props := map[string]any{}
	var required []string
	for _, f := range jsonFieldsOf(t) {
		s := g.schemaFor(f.typ)
		if ext := extOf(f).extensions(); len(ext) > 0 {
			if _, isRef := s["$ref"]; isRef {
				// OpenAPI 3.0 ignores siblings of $ref; Kubernetes wraps in allOf.
				s = map[string]any{"allOf": []any{s}}
			}
			for k, v := range ext {
				s[k] = v
			}
		}
		props[f.name] = s
		// Without omitempty the field is always written; Kubernetes marks
		// those required too, but for metadata and a few it marks optional.
		if !f.omitempty && f.name != "metadata" && !writtenButOptional[t.Name()+"."+f.name] {
			required = append(required, f.name)
		}
	}
	out := map[string]any{"type": "object", "properties": props}
	if len(required) > 0 {
		out["required"] = required
	}
	if atomicTypes[t.Name()] {
		out["x-kubernetes-map-type"] = "atomic"
	}
	return out
}
