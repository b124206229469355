package clients

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"
)

// TestTypedEndpointSlices: client-go's discovery/v1 client, as an
// EndpointSlice writer uses it (protobuf bodies, as upstream's
// controllers send them), creates a slice that reads back defaulted,
// lists it by its service label, updates its endpoints, and is refused
// a change of addressType with upstream's 422.
func TestTypedEndpointSlices(t *testing.T) {
	c := start(t)
	cfg := *c.cfg
	cfg.ContentType = "application/vnd.kubernetes.protobuf"
	cs, err := kubernetes.NewForConfig(&cfg)
	if err != nil {
		t.Fatal(err)
	}
	slices := cs.DiscoveryV1().EndpointSlices("default")
	in := &discoveryv1.EndpointSlice{
		ObjectMeta:  metav1.ObjectMeta{GenerateName: "web-", Labels: map[string]string{discoveryv1.LabelServiceName: "web"}},
		AddressType: discoveryv1.AddressTypeIPv4,
		Endpoints: []discoveryv1.Endpoint{{Addresses: []string{"10.1.0.5"}, NodeName: ptr.To("node-0"),
			Conditions: discoveryv1.EndpointConditions{Ready: ptr.To(true), Serving: ptr.To(true), Terminating: ptr.To(false)},
			TargetRef:  &corev1.ObjectReference{Kind: "Pod", Namespace: "default", Name: "web-0"}}},
		Ports: []discoveryv1.EndpointPort{{Name: ptr.To("http"), Port: ptr.To[int32](80)}},
	}
	got, err := slices.Create(ctx(t), in, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Name == "web-" || got.Ports[0].Protocol == nil || *got.Ports[0].Protocol != corev1.ProtocolTCP || got.Endpoints[0].TargetRef.Name != "web-0" {
		t.Fatalf("created %+v", got)
	}
	list, err := slices.List(ctx(t), metav1.ListOptions{LabelSelector: discoveryv1.LabelServiceName + "=web"})
	if err != nil || len(list.Items) != 1 || list.Items[0].Name != got.Name {
		t.Fatalf("list: %v %+v", err, list)
	}
	got.Endpoints = append(got.Endpoints, discoveryv1.Endpoint{Addresses: []string{"10.1.0.6"}})
	if got, err = slices.Update(ctx(t), got, metav1.UpdateOptions{}); err != nil || len(got.Endpoints) != 2 {
		t.Fatalf("update: %v %+v", err, got)
	}
	got.AddressType = discoveryv1.AddressTypeIPv6
	got.Endpoints = nil
	if _, err := slices.Update(ctx(t), got, metav1.UpdateOptions{}); !apierrors.IsInvalid(err) {
		t.Fatalf("addressType change: %v, want 422 Invalid", err)
	}
}
