package api

import (
	"encoding/json"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// TestEveryKubernetesFieldIsCarried walks each served kind's type beside
// k8s.io/api's, field by JSON name, and fails on a field Kubernetes has
// and converge's type lacks (strict decoding would refuse it and a lax one
// would lose it) or one converge's type has and Kubernetes' lacks. A new
// k8s.io/api version that adds a field fails it until the field is added.
func TestEveryKubernetesFieldIsCarried(t *testing.T) {
	for _, resource := range slices.Sorted(maps.Keys(kubeTypes)) {
		ours, err := New(resource)
		if err != nil {
			t.Fatal(err)
		}
		theirs := reflect.TypeOf(kubeTypes[resource]).Elem()
		compareJSONFields(t, theirs.Name(), reflect.TypeOf(ours).Elem(), theirs, map[[2]reflect.Type]bool{})
	}
	compareJSONFields(t, "Scale", reflect.TypeFor[Scale](), reflect.TypeFor[autoscalingv1.Scale](), map[[2]reflect.Type]bool{})
	// Every built-in resource is here, so a kind added to the table is
	// compared too.
	for _, info := range Resources() {
		if _, ok := kubeTypes[info.Resource]; !ok && info.Group != APIExtensionsGroup {
			t.Errorf("%s: no k8s.io/api type to compare with", info.Resource)
		}
	}
}

// kubeTypes is k8s.io/api's type of each built-in resource converge serves.
var kubeTypes = map[string]runtime.Object{
	"pods":                     &corev1.Pod{},
	"nodes":                    &corev1.Node{},
	"services":                 &corev1.Service{},
	"endpoints":                &corev1.Endpoints{},
	"namespaces":               &corev1.Namespace{},
	"bindings":                 &corev1.Binding{},
	"events":                   &corev1.Event{},
	"configmaps":               &corev1.ConfigMap{},
	"secrets":                  &corev1.Secret{},
	"serviceaccounts":          &corev1.ServiceAccount{},
	"persistentvolumeclaims":   &corev1.PersistentVolumeClaim{},
	"deployments":              &appsv1.Deployment{},
	"replicasets":              &appsv1.ReplicaSet{},
	"statefulsets":             &appsv1.StatefulSet{},
	"daemonsets":               &appsv1.DaemonSet{},
	"jobs":                     &batchv1.Job{},
	"cronjobs":                 &batchv1.CronJob{},
	"leases":                   &coordinationv1.Lease{},
	"endpointslices":           &discoveryv1.EndpointSlice{},
	"horizontalpodautoscalers": &autoscalingv2.HorizontalPodAutoscaler{},
	"ingresses":                &networkingv1.Ingress{},
	"networkpolicies":          &networkingv1.NetworkPolicy{},
	"poddisruptionbudgets":     &policyv1.PodDisruptionBudget{},
	"roles":                    &rbacv1.Role{},
	"clusterroles":             &rbacv1.ClusterRole{},
	"rolebindings":             &rbacv1.RoleBinding{},
	"clusterrolebindings":      &rbacv1.ClusterRoleBinding{},
}

// sameJSON are pairs of types JSON writes alike: converge keeps a managed
// fields entry's set raw, Kubernetes in a struct that writes it raw.
var sameJSON = map[[2]reflect.Type]bool{
	{reflect.TypeFor[json.RawMessage](), reflect.TypeFor[metav1.FieldsV1]()}: true,
	{reflect.TypeFor[Time](), reflect.TypeFor[metav1.Time]()}:                true,
	{reflect.TypeFor[MicroTime](), reflect.TypeFor[metav1.MicroTime]()}:      true,
}

func compareJSONFields(t *testing.T, path string, ours, theirs reflect.Type, seen map[[2]reflect.Type]bool) {
	t.Helper()
	// A pointer on one side only differs in how an empty value is
	// written, not in what is carried.
	for {
		ours, theirs = derefType(ours), derefType(theirs)
		if ours.Kind() != theirs.Kind() || ours.Kind() != reflect.Slice && ours.Kind() != reflect.Map {
			break
		}
		ours, theirs = ours.Elem(), theirs.Elem()
	}
	pair := [2]reflect.Type{ours, theirs}
	if ours == theirs || sameJSON[pair] || seen[pair] {
		return
	}
	seen[pair] = true
	if ours.Kind() != theirs.Kind() {
		t.Errorf("%s: converge's is %v, Kubernetes' %v", path, ours, theirs)
		return
	}
	if ours.Kind() != reflect.Struct {
		return
	}
	of, tf := jsonFieldTypes(ours), jsonFieldTypes(theirs)
	for name, ft := range tf {
		ot, ok := of[name]
		if !ok {
			t.Errorf("%s.%s: Kubernetes' field (%v) is missing", path, name, ft)
			continue
		}
		compareJSONFields(t, path+"."+name, ot, ft, seen)
	}
	for name := range of {
		if _, ok := tf[name]; !ok {
			t.Errorf("%s.%s: Kubernetes has no such field", path, name)
		}
	}
}

// jsonFieldTypes is the type of each field JSON carries in t, by name,
// with embedded structs' fields inlined.
func jsonFieldTypes(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		name, _, _ := strings.Cut(tag, ",")
		switch {
		case tag == "-" || !f.IsExported() && !f.Anonymous:
		case f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct:
			for n, ft := range jsonFieldTypes(f.Type) {
				out[n] = ft
			}
		case name == "":
			out[f.Name] = f.Type
		default:
			out[name] = f.Type
		}
	}
	return out
}

func derefType(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}
