package model

import (
	"slices"
	"testing"
)

// TestEndpointsForSeveralPorts: each Service port is in the Endpoints,
// named as the Service names it and numbered with its target in the pod
// (a named target resolves to the pod's container port of that name), as
// upstream's endpoints controller and FindPort give them.
func TestEndpointsForSeveralPorts(t *testing.T) {
	sel := map[string]string{"app": "web"}
	svc := &Service{Meta: Meta{Name: "web", Namespace: "default"}, Selector: sel, Ports: []ServicePort{
		{Name: "http", Protocol: "TCP", Port: 8080, TargetPort: 80},
		{Name: "alt", Protocol: "TCP", Port: 8081, TargetPort: 80},
		{Name: "metrics", Protocol: "TCP", Port: 9090, TargetName: "metrics"},
	}}
	ready := func(name, ip string, ports ...ContainerPort) *Pod {
		return &Pod{Meta: Meta{Name: name, Namespace: "default", Labels: sel}, PodIP: ip, Ready: true, Ports: ports}
	}
	metrics := ContainerPort{Name: "metrics", Protocol: "TCP", Port: 9100}
	pods := []Obj{
		ready("web-a", "127.100.0.2", metrics),
		ready("web-b", "127.100.0.3", metrics),
		ready("web-c", "127.100.0.4", ContainerPort{Name: "metrics", Protocol: "UDP", Port: 9100}), // other protocol: no metrics
	}
	addrs, ports := EndpointsFor(svc, pods)
	want := []EndpointPort{{Name: "alt", Protocol: "TCP", Port: 80}, {Name: "http", Protocol: "TCP", Port: 80}, {Name: "metrics", Protocol: "TCP", Port: 9100}}
	if !slices.Equal(ports, want) {
		t.Errorf("ports %+v, want %+v", ports, want)
	}
	if len(addrs) != 2 || addrs[0].Pod != "web-a" || addrs[1].Pod != "web-b" {
		t.Errorf("addresses %+v: want web-a and web-b, which serve the same ports", addrs)
	}
	if n, ok := FindPort(pods[2].(*Pod), svc.Ports[2]); ok {
		t.Errorf("a named target resolved across protocols to %d", n)
	}
	es, sp := SliceEndpoints(svc, pods)
	if len(es) != 2 || !slices.Equal(sp, want) {
		t.Errorf("slice %+v on %+v", es, sp)
	}
}

// TestServicesTheControllerLeavesAlone: a Service without a selector, or
// an ExternalName one, gets no Endpoints and no EndpointSlice from the
// endpoints controller (its user writes them), as upstream's.
func TestServicesTheControllerLeavesAlone(t *testing.T) {
	for _, svc := range []*Service{
		{Meta: Meta{Name: "manual", Namespace: "default"}, Ports: ServicePorts(80)},
		{Meta: Meta{Name: "ext", Namespace: "default"}, Selector: map[string]string{"app": "web"}, ExternalName: true},
	} {
		c := NewMemory(EndpointsController)
		c.Put(svc)
		c.Put(&Pod{Meta: Meta{Name: "web-a", Namespace: "default", Labels: map[string]string{"app": "web"}}, PodIP: "127.100.0.2", Ready: true})
		w := &countingWriter{}
		reconcileEndpoints(c, nil, w, KeyOf(svc))
		if w.writes != 0 {
			t.Errorf("%s: the endpoints controller wrote %d times", svc.Name, w.writes)
		}
	}
}

// countingWriter counts the endpoints controller's writes; it makes no
// other kind.
type countingWriter struct {
	Writer
	writes int
}

func (w *countingWriter) Create(Obj) int64            { w.writes++; return 1 }
func (w *countingWriter) Update(Verb, Obj, Obj) int64 { w.writes++; return 1 }
func (w *countingWriter) Delete(Obj) int64            { w.writes++; return 1 }
