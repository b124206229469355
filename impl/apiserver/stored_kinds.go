package apiserver

import (
	"reflect"
	"strconv"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/converge-dev/converge/impl/api"
)

// What the apiserver needs to know of the stored-only kinds (ConfigMap,
// Secret, ServiceAccount, Lease), whose bodies are k8s.io/api's types.

var (
	kubeTimeType      = reflect.TypeFor[metav1.Time]()
	kubeMicroTimeType = reflect.TypeFor[metav1.MicroTime]()
)

// kubeComponentName is the OpenAPI component of a k8s.io/api or
// apimachinery meta/v1 type: its Kubernetes name, from its Go package
// ("k8s.io/api/coordination/v1".LeaseSpec is
// io.k8s.api.coordination.v1.LeaseSpec).
func kubeComponentName(t reflect.Type) (string, bool) {
	pkg := t.PkgPath()
	switch {
	case strings.HasPrefix(pkg, "k8s.io/api/"):
		return "io.k8s.api." + strings.ReplaceAll(strings.TrimPrefix(pkg, "k8s.io/api/"), "/", ".") + "." + t.Name(), true
	case pkg == "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1":
		return "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1." + t.Name(), true
	case pkg == "k8s.io/apimachinery/pkg/apis/meta/v1":
		return "io.k8s.apimachinery.pkg.apis.meta.v1." + t.Name(), true
	}
	return "", false
}

// storedPrinter is kubectl's table for a stored kind, as Kubernetes'
// printers print it; ok false for other kinds.
func storedPrinter(kind string) ([]tableColumn, func(api.Object) []any, bool) {
	name := func(o api.Object) string { return api.Meta(o).Name }
	switch kind {
	case "ConfigMap":
		return []tableColumn{col("Name", "string", 0), col("Data", "integer", 0), col("Age", "string", 0)},
			func(o api.Object) []any {
				c := o.(*api.ConfigMap)
				return []any{name(o), int64(len(c.Data) + len(c.BinaryData)), age(o)}
			}, true
	case "Secret":
		return []tableColumn{col("Name", "string", 0), col("Type", "string", 0), col("Data", "integer", 0), col("Age", "string", 0)},
			func(o api.Object) []any {
				s := o.(*api.Secret)
				return []any{name(o), string(s.Type), int64(len(s.Data)), age(o)}
			}, true
	case "ServiceAccount":
		return []tableColumn{col("Name", "string", 0), col("Secrets", "string", 0), col("Age", "string", 0)},
			func(o api.Object) []any {
				return []any{name(o), strconv.Itoa(len(o.(*api.ServiceAccount).Secrets)), age(o)}
			}, true
	case "CustomResourceDefinition":
		// Upstream serves CRDs with apiserver's default table: the name and
		// the creation time.
		return []tableColumn{col("Name", "string", 0), col("Created At", "date", 0)},
			func(o api.Object) []any {
				return []any{name(o), api.Meta(o).CreationTimestamp.UTC().Format(time.RFC3339)}
			}, true
	case "Lease":
		return []tableColumn{col("Name", "string", 0), col("Holder", "string", 0), col("Age", "string", 0)},
			func(o api.Object) []any {
				holder := ""
				if h := o.(*api.Lease).Spec.HolderIdentity; h != nil {
					holder = *h
				}
				return []any{name(o), holder, age(o)}
			}, true
	}
	return nil, nil, false
}
