package model

import (
	"maps"
	"slices"
)

// The endpoints controller writes, beside each Service's Endpoints, the
// EndpointSlice upstream's EndpointSlice controller keeps for it: every
// selected pod with an address, not only the ready ones, each with its
// conditions. The slice is named after the Service (upstream generates
// "<service>-xxxxx"; a fixed name keeps one slice per Service without a
// lookup by label, and names deterministic), labelled with the Service's
// name and its manager, and owned by the Service.

// Labels upstream's EndpointSlice controller sets.
const (
	LabelServiceName    = "kubernetes.io/service-name"
	LabelManagedBy      = "endpointslice.kubernetes.io/managed-by"
	SliceControllerName = "endpointslice-controller.k8s.io"
)

// SliceEndpoint is one pod in an EndpointSlice. Ready is serving and not
// terminating; Serving is the pod's readiness; Terminating its deletion.
type SliceEndpoint struct {
	Pod, IP, Node               string
	Ready, Serving, Terminating bool
}

// EndpointSlice is discovery.k8s.io/v1 EndpointSlice, IPv4, with the
// ports its endpoints serve.
type EndpointSlice struct {
	Meta
	Endpoints []SliceEndpoint // sorted by pod name
	Ports     []EndpointPort
}

func (e *EndpointSlice) meta() *Meta  { return &e.Meta }
func (e *EndpointSlice) Kind() Kind   { return KindEndpointSlice }
func (e *EndpointSlice) shallow() Obj { c := *e; return &c }

// managedSlice: the slice is this controller's, as upstream's EndpointSlice
// controller tells its own by the managed-by label and touches no other.
func managedSlice(es *EndpointSlice) bool { return es.Labels[LabelManagedBy] == SliceControllerName }

// SliceEndpoints are the endpoints a Service's slice lists and their
// ports: the selected pods of its namespace that have an address, in name
// order, that serve the same ports as the first of them (upstream puts
// each set of ports in a slice of its own; the model keeps one slice, and
// leaves out the pods whose named ports resolve otherwise). An empty
// slice has no ports, as upstream's placeholder.
func SliceEndpoints(s *Service, pods []Obj) ([]SliceEndpoint, []EndpointPort) {
	var out []SliceEndpoint
	var ports []EndpointPort
	for _, o := range pods {
		p := o.(*Pod)
		if p.Namespace != s.Namespace || !Matches(s.Selector, p.Labels) || p.PodIP == "" {
			continue
		}
		pp, ok := PodPorts(s, p)
		switch {
		case !ok:
			continue
		case len(out) == 0:
			ports = pp
		case !slices.Equal(pp, ports):
			continue
		}
		out = append(out, SliceEndpoint{Pod: p.Name, IP: p.PodIP, Node: p.NodeName,
			Ready: p.Ready && !p.Deleting, Serving: p.Ready, Terminating: p.Deleting})
	}
	return out, ports
}

// SliceLabels are a slice's labels: the Service's, then the two upstream
// sets.
func SliceLabels(s *Service) map[string]string {
	out := make(map[string]string, len(s.Labels)+2)
	for k, v := range s.Labels {
		out[k] = v
	}
	out[LabelServiceName], out[LabelManagedBy] = s.Name, SliceControllerName
	return out
}

// reconcileSlice keeps s's slice: created once the Service is there (not
// while it is being deleted, as upstream skips a terminating Service),
// updated when its endpoints or port change, deleted with the Service.
func reconcileSlice(c *Memory, t Writer, key string, s *Service) {
	es, _ := c.Get(KindEndpointSlice, key).(*EndpointSlice)
	if es != nil && !managedSlice(es) {
		return // another writer's slice of that name: upstream's controller leaves it alone
	}
	if s == nil {
		if es != nil {
			t.Delete(es)
		}
		return
	}
	if s.Deleting || !EndpointsManaged(s) {
		return
	}
	eps, ports := SliceEndpoints(s, c.List(KindPod))
	owner, labels := Owner{Kind: KindService, Name: s.Name, UID: s.UID}, SliceLabels(s)
	switch {
	case es == nil:
		t.Create(&EndpointSlice{Meta: Meta{Name: s.Name, Namespace: s.Namespace, Labels: labels, Owner: owner},
			Endpoints: eps, Ports: ports})
	case !slices.Equal(es.Endpoints, eps) || !slices.Equal(es.Ports, ports) || es.Owner != owner || !maps.Equal(es.Labels, labels):
		// A slice left by an earlier Service of the same name (deleted
		// and applied again before this controller saw it go) is taken
		// over: no garbage collector watches Services here. The labels
		// follow the Service's, as upstream's do.
		n := es.shallow().(*EndpointSlice)
		n.Endpoints, n.Ports, n.Owner, n.Labels = eps, ports, owner, labels
		t.Update(VerbUpdate, es, n)
	}
}
