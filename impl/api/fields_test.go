package api

import (
	"encoding/json"
	"reflect"
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
)

// TestEveryKubernetesFieldIsCarried walks each served kind's type beside
// k8s.io/api's, field by JSON name, and fails on a field Kubernetes has
// and converge's type lacks (strict decoding would refuse it and a lax one
// would lose it) or one converge's type has and Kubernetes' lacks. A new
// k8s.io/api version that adds a field fails it until the field is added.
func TestEveryKubernetesFieldIsCarried(t *testing.T) {
	kinds := []struct {
		ours, theirs any
	}{
		{Pod{}, corev1.Pod{}},
		{Node{}, corev1.Node{}},
		{Service{}, corev1.Service{}},
		{Endpoints{}, corev1.Endpoints{}},
		{Namespace{}, corev1.Namespace{}},
		{Binding{}, corev1.Binding{}},
		{Event{}, corev1.Event{}},
		{ConfigMap{}, corev1.ConfigMap{}},
		{Secret{}, corev1.Secret{}},
		{ServiceAccount{}, corev1.ServiceAccount{}},
		{PersistentVolumeClaim{}, corev1.PersistentVolumeClaim{}},
		{Deployment{}, appsv1.Deployment{}},
		{ReplicaSet{}, appsv1.ReplicaSet{}},
		{StatefulSet{}, appsv1.StatefulSet{}},
		{DaemonSet{}, appsv1.DaemonSet{}},
		{Scale{}, autoscalingv1.Scale{}},
		{Job{}, batchv1.Job{}},
		{Lease{}, coordinationv1.Lease{}},
		{EndpointSlice{}, discoveryv1.EndpointSlice{}},
		{CronJob{}, batchv1.CronJob{}},
		{HorizontalPodAutoscaler{}, autoscalingv2.HorizontalPodAutoscaler{}},
		{Ingress{}, networkingv1.Ingress{}},
		{NetworkPolicy{}, networkingv1.NetworkPolicy{}},
		{PodDisruptionBudget{}, policyv1.PodDisruptionBudget{}},
		{Role{}, rbacv1.Role{}},
		{ClusterRole{}, rbacv1.ClusterRole{}},
		{RoleBinding{}, rbacv1.RoleBinding{}},
		{ClusterRoleBinding{}, rbacv1.ClusterRoleBinding{}},
	}
	for _, k := range kinds {
		ours, theirs := reflect.TypeOf(k.ours), reflect.TypeOf(k.theirs)
		compareJSONFields(t, theirs.Name(), ours, theirs, map[[2]reflect.Type]bool{})
	}
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
