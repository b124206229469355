package model

import (
	"cmp"
	"slices"
)

// A Service's ports, and the ports its Endpoints and EndpointSlice carry:
// each Service port, named as the Service names it, numbered with its
// target in each pod. A numbered targetPort is that number; a named one
// is the pod's container port of that name and protocol (upstream's
// podutil.FindPort), and a pod without one does not serve that port.

// ServicePort is one port of a Service. TargetName is a named targetPort;
// else TargetPort is the number.
type ServicePort struct {
	Name, Protocol string
	Port           int
	TargetPort     int
	TargetName     string
}

// ContainerPort is a named port of a pod's container.
type ContainerPort struct {
	Name, Protocol string
	Port           int
}

// EndpointPort is one port in Endpoints or an EndpointSlice.
type EndpointPort struct {
	Name, Protocol string
	Port           int
}

// EndpointsManaged: the endpoints controller keeps s's Endpoints and
// EndpointSlice. Upstream's skip a Service without a selector (its user
// writes them) and an ExternalName one (a DNS name, no backends).
func EndpointsManaged(s *Service) bool { return len(s.Selector) > 0 && !s.ExternalName }

// FindPort is the number sp targets in pod p; false when a named target
// names no container port of p with sp's protocol.
func FindPort(p *Pod, sp ServicePort) (int, bool) {
	if sp.TargetName == "" {
		return sp.TargetPort, true
	}
	for _, cp := range p.Ports {
		if cp.Name == sp.TargetName && cp.Protocol == sp.Protocol {
			return cp.Port, true
		}
	}
	return 0, false
}

// PodPorts are the ports p serves for s, sorted by name; false when s has
// ports and p serves none of them (upstream then lists no address for
// it). A Service without ports (a headless one) is served on no port.
func PodPorts(s *Service, p *Pod) ([]EndpointPort, bool) {
	var out []EndpointPort
	for _, sp := range s.Ports {
		if n, ok := FindPort(p, sp); ok {
			out = append(out, EndpointPort{Name: sp.Name, Protocol: sp.Protocol, Port: n})
		}
	}
	SortEndpointPorts(out)
	return out, len(out) > 0 || len(s.Ports) == 0
}

// SortEndpointPorts sorts ports by name, then number and protocol: the
// order the model keeps them in.
func SortEndpointPorts(ps []EndpointPort) {
	slices.SortFunc(ps, func(a, b EndpointPort) int {
		return cmp.Or(cmp.Compare(a.Name, b.Name), cmp.Compare(a.Port, b.Port), cmp.Compare(a.Protocol, b.Protocol))
	})
}

// EndpointsFor are the addresses s's Endpoints list and their ports: the
// ready, non-terminating pods of its namespace that s selects, in name
// order, that serve the same ports as the first of them. Upstream packs
// pods serving other ports into subsets of their own; the model keeps one
// subset and leaves those out. Without addresses there are no ports, as
// Kubernetes drops an empty subset.
func EndpointsFor(s *Service, pods []Obj) ([]Address, []EndpointPort) {
	var addrs []Address
	var ports []EndpointPort
	for _, o := range pods {
		p := o.(*Pod)
		if p.Namespace != s.Namespace || !Matches(s.Selector, p.Labels) || !p.Ready || p.PodIP == "" || p.Deleting {
			continue
		}
		pp, ok := PodPorts(s, p)
		switch {
		case !ok:
			continue
		case len(addrs) == 0:
			ports = pp
		case !slices.Equal(pp, ports):
			continue
		}
		addrs = append(addrs, Address{Pod: p.Name, IP: p.PodIP, Node: p.NodeName})
	}
	return addrs, ports
}

// FirstPort is the Service's first port number, 0 without ports: what
// kube-proxy's rule listens on.
func (s *Service) FirstPort() int {
	if len(s.Ports) == 0 {
		return 0
	}
	return s.Ports[0].Port
}
