package project

import (
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"

	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/model"
)

// A Service's EndpointSlice is upstream's: IPv4, owned by the Service,
// its port named after the Service's, one endpoint per pod pointing back
// at it with all three conditions; it projects back to the model's, and
// an update keeps what the model does not carry.
func TestEndpointSliceFromService(t *testing.T) {
	svc := ServiceFor("web", "web", 80)
	svc.Spec.Ports[0].Name = "http"
	svc.UID = "svc-uid"
	uids := NewUIDs()
	ms := &model.Service{Meta: model.Meta{Name: "web", Namespace: "default", UID: uids.Of(string(svc.UID))}, Ports: []model.ServicePort{{Name: "http", Protocol: "TCP", Port: 80, TargetPort: 80}}}
	es := &model.EndpointSlice{Meta: model.Meta{Namespace: "default", Name: "web", Labels: model.SliceLabels(ms),
		Owner: model.Owner{Kind: model.KindService, Name: "web", UID: ms.UID}}, Ports: []model.EndpointPort{{Name: "http", Protocol: "TCP", Port: 80}}, Endpoints: []model.SliceEndpoint{
		{Pod: "web-b", IP: "127.100.0.3", Node: "n1", Serving: true, Terminating: true},
		{Pod: "web-a", IP: "127.100.1.2", Node: "n2", Ready: true, Serving: true}}}
	obj, err := New(es, svc, uids)
	if err != nil {
		t.Fatal(err)
	}
	s := obj.(*api.EndpointSlice)
	yes, no := true, false
	want := []discoveryv1.Endpoint{
		{Addresses: []string{"127.100.1.2"}, NodeName: ptr("n2"), Conditions: discoveryv1.EndpointConditions{Ready: &yes, Serving: &yes, Terminating: &no},
			TargetRef: &corev1.ObjectReference{Kind: "Pod", Namespace: "default", Name: "web-a"}},
		{Addresses: []string{"127.100.0.3"}, NodeName: ptr("n1"), Conditions: discoveryv1.EndpointConditions{Ready: &no, Serving: &yes, Terminating: &yes},
			TargetRef: &corev1.ObjectReference{Kind: "Pod", Namespace: "default", Name: "web-b"}},
	}
	if !reflect.DeepEqual(s.Endpoints, want) {
		t.Errorf("endpoints:\n got %s\nwant %s", mustJSON(t, s.Endpoints), mustJSON(t, want))
	}
	if s.AddressType != discoveryv1.AddressTypeIPv4 || *s.Ports[0].Name != "http" || *s.Ports[0].Port != 80 || *s.Ports[0].Protocol != corev1.ProtocolTCP {
		t.Errorf("addressType %s, ports %s", s.AddressType, mustJSON(t, s.Ports))
	}
	wantRef := []api.OwnerReference{{APIVersion: "v1", Kind: "Service", Name: "web", UID: "svc-uid", Controller: ptr(true), BlockOwnerDeletion: ptr(true)}}
	if !reflect.DeepEqual(s.OwnerReferences, wantRef) || s.Labels["kubernetes.io/service-name"] != "web" ||
		s.Labels["endpointslice.kubernetes.io/managed-by"] != "endpointslice-controller.k8s.io" {
		t.Errorf("metadata %s", mustJSON(t, s.ObjectMeta))
	}
	api.Default(s)
	if err := api.Validate(s); err != nil {
		t.Errorf("EndpointSlice invalid: %v", err)
	}
	back, err := ToModel(s, uids)
	if err != nil {
		t.Fatal(err)
	}
	es.Endpoints = sortedSliceEndpoints(es.Endpoints)
	if !reflect.DeepEqual(back, es) {
		t.Errorf("round trip:\n got %#v\nwant %#v", back, es)
	}

	// An update keeps an endpoint's extra fields and the port's name;
	// with no pod left there is no port, as upstream's placeholder.
	s.Endpoints[0].Hostname, s.Endpoints[0].TargetRef.UID = ptr("a"), "pod-uid"
	next := *es
	next.Endpoints = []model.SliceEndpoint{{Pod: "web-a", IP: "127.100.1.2", Node: "n2", Serving: true, Terminating: true}}
	upd, err := Apply(s, &next, uids)
	if err != nil {
		t.Fatal(err)
	}
	u := upd.(*api.EndpointSlice)
	if len(u.Endpoints) != 1 || *u.Endpoints[0].Hostname != "a" || u.Endpoints[0].TargetRef.UID != "pod-uid" || *u.Endpoints[0].Conditions.Ready || *u.Ports[0].Name != "http" {
		t.Errorf("updated %s", mustJSON(t, u))
	}
	next.Endpoints, next.Ports = nil, nil
	empty, err := Apply(u, &next, uids)
	if err != nil {
		t.Fatal(err)
	}
	if e := empty.(*api.EndpointSlice); e.Endpoints != nil || e.Ports != nil {
		t.Errorf("empty slice %s", mustJSON(t, e))
	}
	if err := api.Validate(empty); err != nil {
		t.Errorf("empty slice invalid: %v", err)
	}
}
