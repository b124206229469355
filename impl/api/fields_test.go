package api

import (
	"maps"
	"reflect"
	"slices"
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
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// TestServedKindsAreKubernetesTypes: every built-in resource converge
// serves decodes into k8s.io/api's own Go type, so every field Kubernetes
// has is carried as Kubernetes carries it; a kind that went back to a
// type of converge's own fails here, and so does a served kind left out
// of kubeTypes.
func TestServedKindsAreKubernetesTypes(t *testing.T) {
	for _, resource := range slices.Sorted(maps.Keys(kubeTypes)) {
		ours, err := New(resource)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := reflect.TypeOf(ours), reflect.TypeOf(kubeTypes[resource]); got != want {
			t.Errorf("%s: decodes into %v, want k8s.io/api's %v", resource, got, want)
		}
	}
	if got, want := reflect.TypeFor[Scale](), reflect.TypeFor[autoscalingv1.Scale](); got != want {
		t.Errorf("scale: %v, want %v", got, want)
	}
	if got, want := reflect.TypeFor[CustomResourceDefinition](), reflect.TypeFor[apiextensionsv1.CustomResourceDefinition](); got != want {
		t.Errorf("customresourcedefinitions: %v, want %v", got, want)
	}
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
