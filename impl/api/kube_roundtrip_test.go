package api

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"reflect"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/apitesting/fuzzer"
	"k8s.io/apimachinery/pkg/api/resource"
	metafuzzer "k8s.io/apimachinery/pkg/apis/meta/fuzzer"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/randfill"
)

// TestKubernetesObjectsRoundTrip fills k8s.io/api objects of every served
// built-in kind at random (randfill, with apimachinery's own metadata
// fuzzer), writes them as encoding/json does, decodes them strictly into
// converge's types and encodes them back: the JSON must come back as sent,
// every field, every explicit empty value that Kubernetes writes. It is
// TestEveryKubernetesFieldIsCarried's complement: that one finds a missing
// field, this one a field carried differently (a pointer made a value, an
// omitempty that Kubernetes lacks).
func TestKubernetesObjectsRoundTrip(t *testing.T) {
	f := fuzzer.FuzzerFor(metafuzzer.Funcs, rand.NewSource(1), serializer.NewCodecFactory(runtime.NewScheme())).
		NilChance(0.2).NumElements(0, 2).Funcs(
		// Values that decode: randfill would fill a quantity's or an
		// int-or-string's private fields at random.
		func(q *resource.Quantity, c randfill.Continue) {
			*q = *resource.NewQuantity(c.Int63n(1000), resource.DecimalSI)
		},
		func(v *intstr.IntOrString, c randfill.Continue) {
			if c.Bool() {
				*v = intstr.FromInt32(c.Int31n(100))
			} else {
				*v = intstr.FromString(fmt.Sprint("port-", c.Intn(10)))
			}
		},
	)
	kinds := []struct {
		resource string
		obj      func() runtime.Object
	}{
		{"pods", func() runtime.Object { return &corev1.Pod{} }},
		{"services", func() runtime.Object { return &corev1.Service{} }},
		{"nodes", func() runtime.Object { return &corev1.Node{} }},
		{"namespaces", func() runtime.Object { return &corev1.Namespace{} }},
		{"endpoints", func() runtime.Object { return &corev1.Endpoints{} }},
		{"configmaps", func() runtime.Object { return &corev1.ConfigMap{} }},
		{"secrets", func() runtime.Object { return &corev1.Secret{} }},
		{"serviceaccounts", func() runtime.Object { return &corev1.ServiceAccount{} }},
		{"persistentvolumeclaims", func() runtime.Object { return &corev1.PersistentVolumeClaim{} }},
		{"events", func() runtime.Object { return &corev1.Event{} }},
		{"deployments", func() runtime.Object { return &appsv1.Deployment{} }},
		{"replicasets", func() runtime.Object { return &appsv1.ReplicaSet{} }},
		{"statefulsets", func() runtime.Object { return &appsv1.StatefulSet{} }},
		{"daemonsets", func() runtime.Object { return &appsv1.DaemonSet{} }},
		{"jobs", func() runtime.Object { return &batchv1.Job{} }},
		{"leases", func() runtime.Object { return &coordinationv1.Lease{} }},
		{"endpointslices", func() runtime.Object { return &discoveryv1.EndpointSlice{} }},
		{"cronjobs", func() runtime.Object { return &batchv1.CronJob{} }},
		{"horizontalpodautoscalers", func() runtime.Object { return &autoscalingv2.HorizontalPodAutoscaler{} }},
		{"ingresses", func() runtime.Object { return &networkingv1.Ingress{} }},
		{"networkpolicies", func() runtime.Object { return &networkingv1.NetworkPolicy{} }},
		{"poddisruptionbudgets", func() runtime.Object { return &policyv1.PodDisruptionBudget{} }},
		{"roles", func() runtime.Object { return &rbacv1.Role{} }},
		{"clusterroles", func() runtime.Object { return &rbacv1.ClusterRole{} }},
		{"rolebindings", func() runtime.Object { return &rbacv1.RoleBinding{} }},
		{"clusterrolebindings", func() runtime.Object { return &rbacv1.ClusterRoleBinding{} }},
	}
	for _, k := range kinds {
		info, ok := LookupResource(k.resource)
		if !ok {
			t.Fatalf("%s: not served", k.resource)
		}
		for i := range 100 {
			o := k.obj()
			f.Fill(o)
			var sent map[string]any
			b, err := json.Marshal(o)
			if err == nil {
				err = json.Unmarshal(b, &sent)
			}
			if err != nil {
				t.Fatal(err)
			}
			sent["apiVersion"], sent["kind"] = info.APIVersion(), info.Kind
			// kube-apiserver never serves a selfLink; converge drops one.
			if md, ok := sent["metadata"].(map[string]any); ok {
				delete(md, "selfLink")
			}
			body, _ := json.Marshal(sent)
			ours, err := Decode(k.resource, body)
			if err != nil {
				t.Fatalf("%s #%d: %v\n%s", info.Kind, i, err, body)
			}
			back, err := Marshal(ours)
			if err != nil {
				t.Fatal(err)
			}
			var served map[string]any
			if err := json.Unmarshal(back, &served); err != nil {
				t.Fatal(err)
			}
			if d := jsonDiff(info.Kind, sent, served); d != "" {
				t.Fatalf("%s #%d comes back changed: %s\nsent:   %s\nserved: %s", info.Kind, i, d, body, back)
			}
		}
	}
}

// jsonDiff names the first place where got differs from want.
func jsonDiff(path string, want, got any) string {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return fmt.Sprintf("%s: %v became %v", path, want, got)
		}
		for k, v := range w {
			if d := jsonDiff(path+"."+k, v, g[k]); d != "" {
				return d
			}
		}
		for k, v := range g {
			if _, ok := w[k]; !ok {
				return fmt.Sprintf("%s.%s: %v was added", path, k, v)
			}
		}
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return fmt.Sprintf("%s: %v became %v", path, want, got)
		}
		for i := range w {
			if d := jsonDiff(fmt.Sprintf("%s[%d]", path, i), w[i], g[i]); d != "" {
				return d
			}
		}
	default:
		if !reflect.DeepEqual(want, got) {
			return fmt.Sprintf("%s: %#v became %#v", path, want, got)
		}
	}
	return ""
}
