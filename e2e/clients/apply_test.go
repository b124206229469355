package clients

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	appsv1ac "k8s.io/client-go/applyconfigurations/apps/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"
)

// webApply is the apply configuration of a Deployment with replicas.
func webApply(replicas int32) *appsv1ac.DeploymentApplyConfiguration {
	labels := map[string]string{"app": "applied"}
	return appsv1ac.Deployment("applied", "default").WithSpec(appsv1ac.DeploymentSpec().
		WithReplicas(replicas).
		WithSelector(metav1ac.LabelSelector().WithMatchLabels(labels)).
		WithTemplate(corev1ac.PodTemplateSpec().WithLabels(labels).
			WithSpec(corev1ac.PodSpec().WithContainers(corev1ac.Container().WithName("web").WithImage("nginx:1.27")))))
}

// TestServerSideApply: client-go's typed Apply creates, a second manager
// changing an owned field is 409 Conflict, Force takes the field over,
// and applying the same configuration again changes nothing.
func TestServerSideApply(t *testing.T) {
	c := start(t)
	deps := c.cs.AppsV1().Deployments("default")
	d, err := deps.Apply(ctx(t), webApply(2), metav1.ApplyOptions{FieldManager: "alice"})
	if err != nil {
		t.Fatal(err)
	}
	if *d.Spec.Replicas != 2 {
		t.Fatalf("created with %d replicas", *d.Spec.Replicas)
	}
	_, err = deps.Apply(ctx(t), webApply(5), metav1.ApplyOptions{FieldManager: "bob"})
	if !apierrors.IsConflict(err) {
		t.Fatalf("bob's apply over alice's replicas: %v, want 409 Conflict", err)
	}
	d, err = deps.Apply(ctx(t), webApply(5), metav1.ApplyOptions{FieldManager: "bob", Force: true})
	if err != nil {
		t.Fatal(err)
	}
	if *d.Spec.Replicas != 5 {
		t.Fatalf("forced apply left %d replicas", *d.Spec.Replicas)
	}
	again, err := deps.Apply(ctx(t), webApply(5), metav1.ApplyOptions{FieldManager: "bob"})
	if err != nil {
		t.Fatal(err)
	}
	// The controllers write the status meanwhile: the spec's generation
	// tells whether the repeat changed anything.
	if again.Generation != d.Generation {
		t.Fatalf("a repeated apply changed the spec: generation %d -> %d", d.Generation, again.Generation)
	}
	// A kind no controller writes: the repeat is not even a write.
	cms := c.cs.CoreV1().ConfigMaps("default")
	cm := corev1ac.ConfigMap("settings", "default").WithData(map[string]string{"a": "1"})
	first, err := cms.Apply(ctx(t), cm, metav1.ApplyOptions{FieldManager: "alice"})
	if err != nil {
		t.Fatal(err)
	}
	second, err := cms.Apply(ctx(t), cm, metav1.ApplyOptions{FieldManager: "alice"})
	if err != nil {
		t.Fatal(err)
	}
	if second.ResourceVersion != first.ResourceVersion {
		t.Fatalf("a repeated apply wrote: resourceVersion %s -> %s", first.ResourceVersion, second.ResourceVersion)
	}
	// alice lost spec.replicas to bob: she may now apply without it.
	owners := map[string]bool{}
	for _, m := range again.ManagedFields {
		owners[m.Manager] = true
	}
	if !owners["alice"] || !owners["bob"] {
		t.Fatalf("managers %v, want alice and bob", owners)
	}
}

// TestServerSideApplyToStatus: client-go's typed ApplyStatus, as a load
// balancer controller publishes its address, sets the status alone and is
// recorded as an Apply with subresource "status".
func TestServerSideApplyToStatus(t *testing.T) {
	c := start(t)
	svcs := c.cs.CoreV1().Services("default")
	spec := corev1ac.Service("lb", "default").WithSpec(corev1ac.ServiceSpec().
		WithType(corev1.ServiceTypeLoadBalancer).WithSelector(map[string]string{"app": "lb"}).
		WithPorts(corev1ac.ServicePort().WithPort(80)))
	if _, err := svcs.Apply(ctx(t), spec, metav1.ApplyOptions{FieldManager: "user"}); err != nil {
		t.Fatal(err)
	}
	status := corev1ac.Service("lb", "default").WithStatus(corev1ac.ServiceStatus().
		WithLoadBalancer(corev1ac.LoadBalancerStatus().WithIngress(corev1ac.LoadBalancerIngress().WithIP("127.0.0.9"))))
	s, err := svcs.ApplyStatus(ctx(t), status, metav1.ApplyOptions{FieldManager: "lb-controller"})
	if err != nil {
		t.Fatal(err)
	}
	if ing := s.Status.LoadBalancer.Ingress; len(ing) != 1 || ing[0].IP != "127.0.0.9" {
		t.Fatalf("status %+v", s.Status)
	}
	if len(s.Spec.Ports) != 1 || s.Spec.Ports[0].Port != 80 {
		t.Fatalf("the status apply changed the spec: %+v", s.Spec.Ports)
	}
	var found bool
	for _, m := range s.ManagedFields {
		found = found || m.Manager == "lb-controller" && m.Operation == metav1.ManagedFieldsOperationApply && m.Subresource == "status"
	}
	if !found {
		t.Fatalf("managedFields %+v: no Apply by lb-controller on status", s.ManagedFields)
	}
}
