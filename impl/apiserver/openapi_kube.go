package apiserver

import (
	"reflect"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// k8s.io/api bodies hold apimachinery's scalars, which marshal themselves
// to a JSON string (or number): their Go structs say nothing of their
// JSON, so schemas and field sets treat them as named scalars.
var (
	kubeQuantityType    = reflect.TypeFor[resource.Quantity]()
	kubeIntOrStringType = reflect.TypeFor[intstr.IntOrString]()
	kubeFieldsV1Type    = reflect.TypeFor[metav1.FieldsV1]()
)

// kubeScalarSchema is the schema of an apimachinery scalar type; ok false
// for other types.
func (g *schemaGen) kubeScalarSchema(t reflect.Type) (map[string]any, bool) {
	switch t {
	case kubeQuantityType:
		if _, ok := g.components[quantityName]; !ok {
			g.components[quantityName] = map[string]any{"type": "string"}
		}
		return refTo(quantityName), true
	case kubeIntOrStringType:
		name := "io.k8s.apimachinery.pkg.util.intstr.IntOrString"
		if _, ok := g.components[name]; !ok {
			g.components[name] = map[string]any{"type": "string", "format": "int-or-string", "x-kubernetes-int-or-string": true}
		}
		return refTo(name), true
	case kubeFieldsV1Type:
		// A free-form object, as impl/api's json.RawMessage is.
		return g.schemaFor(rawType), true
	}
	return nil, false
}

// isKubeScalar: apimachinery types whose JSON value is owned as one.
func isKubeScalar(t reflect.Type) bool {
	switch t {
	case kubeQuantityType, kubeIntOrStringType, kubeTimeType, kubeMicroTimeType, kubeFieldsV1Type:
		return true
	}
	return false
}

// supersedes: t, a k8s.io type, takes over the component name of a
// hand-written impl/api type (io.k8s.api.core.v1.PodSpec is both
// api.PodSpec and a StatefulSet's corev1.PodSpec): upstream's is the
// complete one, so a document that has both describes upstream's. It
// records a k8s.io type's component the first time it is built.
func (g *schemaGen) supersedes(name string, t reflect.Type) bool {
	if !strings.HasPrefix(t.PkgPath(), "k8s.io/") || g.kube[name] {
		return false
	}
	if g.kube == nil {
		g.kube = map[string]bool{}
	}
	g.kube[name] = true
	return true
}

// kubeTagExt is the extensions of a k8s.io/api field the fieldExts table
// does not list, from its patchStrategy and patchMergeKey tags (what
// Kubernetes' OpenAPI generator reads too): a list merged by key is a
// list map on that key, one merged without a key a set.
func kubeTagExt(f jsonField) fieldExt {
	if !strings.HasPrefix(f.owner.PkgPath(), "k8s.io/") {
		return fieldExt{}
	}
	e := fieldExt{strategy: f.tag.Get("patchStrategy"), mergeKey: f.tag.Get("patchMergeKey")}
	switch {
	case e.mergeKey != "":
		e.listType, e.mapKeys = "map", []string{e.mergeKey}
	case strings.Contains(e.strategy, "merge") && deref(f.typ).Kind() == reflect.Slice:
		e.listType = "set"
	}
	return e
}

func deref(t reflect.Type) reflect.Type {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}
