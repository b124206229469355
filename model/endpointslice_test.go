package model

import (
	"slices"
	"strings"
	"testing"
)

// TestSliceInvariantCallsReadyOnlyPodsThatWereReady: a slice may list a
// pod that never was ready, but not call it ready or serving.
func TestSliceInvariantCallsReadyOnlyPodsThatWereReady(t *testing.T) {
	chk := NewChecker()
	pod := &Pod{Meta: Meta{Name: "web-0", Namespace: "default", UID: 1}, PodIP: "127.100.0.2"}
	slice := &EndpointSlice{Meta: Meta{Name: "web", Namespace: "default", UID: 2},
		Endpoints: []SliceEndpoint{{Pod: "web-0", IP: "127.100.0.2"}}}
	snap := &Snapshot{Objects: map[Ref]Obj{RefOf(pod): pod, RefOf(slice): slice}}
	if err := chk.Check(snap, nil); err != nil {
		t.Fatalf("a not-ready endpoint was flagged: %v", err)
	}
	serving := &EndpointSlice{Meta: slice.Meta, Endpoints: []SliceEndpoint{{Pod: "web-0", IP: "127.100.0.2", Serving: true}}}
	snap.Objects[RefOf(serving)] = serving
	err := chk.Check(snap, nil)
	if err == nil || !strings.Contains(err.Error(), "endpoint slices call ready only pods that were ready") {
		t.Fatalf("a never-ready pod serving was not flagged: %v", err)
	}
}

// TestEndpointsControllerKeepsASlice: the slice lists every selected pod
// with an address, with its conditions, and goes with the Service.
func TestEndpointsControllerKeepsASlice(t *testing.T) {
	svc := &Service{Meta: Meta{Name: "web", Namespace: "default", UID: 7, Labels: map[string]string{"app": "web"}},
		Selector: map[string]string{"app": "web"}, Ports: ServicePorts(80)}
	sel := map[string]string{"app": "web"}
	pods := []Obj{
		&Pod{Meta: Meta{Name: "web-a", Namespace: "default", Labels: sel}, PodIP: "127.100.0.2", NodeName: "n1", Ready: true},
		&Pod{Meta: Meta{Name: "web-b", Namespace: "default", Labels: sel, Deleting: true}, PodIP: "127.100.0.3", Ready: true},
		&Pod{Meta: Meta{Name: "web-c", Namespace: "default", Labels: sel}, PodIP: "127.100.0.4"},
		&Pod{Meta: Meta{Name: "web-d", Namespace: "default", Labels: sel}}, // no address yet
		&Pod{Meta: Meta{Name: "api-a", Namespace: "default", Labels: map[string]string{"app": "api"}}, PodIP: "127.100.0.5"},
	}
	got, ports := SliceEndpoints(svc, pods)
	want := []SliceEndpoint{
		{Pod: "web-a", IP: "127.100.0.2", Node: "n1", Ready: true, Serving: true},
		{Pod: "web-b", IP: "127.100.0.3", Serving: true, Terminating: true},
		{Pod: "web-c", IP: "127.100.0.4"},
	}
	if len(got) != len(want) {
		t.Fatalf("endpoints %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("endpoint %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	if !slices.Equal(ports, []EndpointPort{{Protocol: "TCP", Port: 80}}) {
		t.Errorf("ports %+v, want 80/TCP", ports)
	}
	if _, ports := SliceEndpoints(svc, nil); ports != nil {
		t.Error("a slice without endpoints carries ports")
	}
	l := SliceLabels(svc)
	if l["app"] != "web" || l[LabelServiceName] != "web" || l[LabelManagedBy] != SliceControllerName || svc.Labels[LabelServiceName] != "" {
		t.Errorf("labels %v (service's %v)", l, svc.Labels)
	}
}
