package registry

import (
	"context"
	"fmt"

	"github.com/converge-dev/converge/impl/api"
)

// The node port range is upstream's default --service-node-port-range.
const nodePortMin, nodePortMax = 30000, 32767

func needsNodePorts(t api.ServiceType) bool {
	return t == api.ServiceTypeNodePort || t == api.ServiceTypeLoadBalancer
}

// assignNodePorts gives every port of a NodePort or LoadBalancer Service a
// node port: the one it asks for, if in range and free; the one it had
// before an update that leaves it out; else the lowest free one, so that
// allocation is deterministic. A Service changed to a type without node
// ports drops the ones it kept from before, as upstream's strategy does.
// A LoadBalancer that sets allocateLoadBalancerNodePorts false gets only
// the node ports it asks for (or had), as upstream allocates none for it.
// old is nil on create. Callers hold allocMu, so one registry never hands
// a port out twice.
func (r *Registry) assignNodePorts(ctx context.Context, s, old *api.Service) error {
	ports := s.Spec.Ports
	if !needsNodePorts(s.Spec.Type) {
		for i := range ports {
			if ports[i].NodePort != 0 && ports[i].NodePort == oldNodePort(old, ports[i]) {
				ports[i].NodePort = 0
			}
		}
		return nil // a node port asked for anyway is validation's to refuse
	}
	fresh := false // a port asks for or needs a port it did not have
	for i := range ports {
		if ports[i].NodePort == 0 {
			ports[i].NodePort = oldNodePort(old, ports[i])
		}
		if ports[i].NodePort == 0 || ports[i].NodePort != oldNodePort(old, ports[i]) {
			fresh = true
		}
	}
	if !fresh {
		return nil
	}
	used, err := r.usedNodePorts(ctx, s)
	if err != nil {
		return err
	}
	var errs api.FieldErrors
	for i := range ports { // asked for first, so the lowest free ones skip them
		p := &ports[i]
		if p.NodePort == 0 {
			continue
		}
		if p.NodePort == oldNodePort(old, *p) {
			used[p.NodePort] = true
			continue
		}
		field := fmt.Sprintf("spec.ports[%d].nodePort", i)
		switch {
		case p.NodePort < nodePortMin || p.NodePort > nodePortMax:
			errs = append(errs, &api.FieldError{Type: api.CauseTypeFieldValueInvalid, Field: field, BadValue: p.NodePort,
				Detail: fmt.Sprintf("provided port is not in the valid range. The range of valid ports is %d-%d", nodePortMin, nodePortMax)})
		case used[p.NodePort]:
			errs = append(errs, &api.FieldError{Type: api.CauseTypeFieldValueInvalid, Field: field, BadValue: p.NodePort,
				Detail: "provided port is already allocated"})
		}
		used[p.NodePort] = true
	}
	if len(errs) > 0 {
		return api.NewInvalid(api.GroupKind{Kind: "Service"}, s.Name, errs)
	}
	allocate := s.Spec.Type != api.ServiceTypeLoadBalancer || s.Spec.AllocateLoadBalancerNodePorts == nil || *s.Spec.AllocateLoadBalancerNodePorts
	next := int32(nodePortMin)
	for i := range ports {
		if ports[i].NodePort != 0 || !allocate {
			continue
		}
		for used[next] {
			next++
		}
		if next > nodePortMax {
			return api.NewInternalError(fmt.Errorf("registry: no free node port in %d-%d", nodePortMin, nodePortMax))
		}
		ports[i].NodePort, used[next] = next, true
	}
	return nil
}

// oldNodePort is the node port old gave the same port (number and
// protocol), or 0.
func oldNodePort(old *api.Service, p api.ServicePort) int32 {
	if old == nil {
		return 0
	}
	for _, o := range old.Spec.Ports {
		if o.Port == p.Port && o.Protocol == p.Protocol {
			return o.NodePort
		}
	}
	return 0
}

// usedNodePorts are the node ports every other Service holds.
func (r *Registry) usedNodePorts(ctx context.Context, s *api.Service) (map[int32]bool, error) {
	list, err := r.List(ctx, "services", "", ListOptions{})
	if err != nil {
		return nil, err
	}
	used := map[int32]bool{}
	for _, o := range api.Items(list) {
		other := o.(*api.Service)
		if other.Namespace == s.Namespace && other.Name == s.Name {
			continue
		}
		for _, p := range other.Spec.Ports {
			if p.NodePort != 0 {
				used[p.NodePort] = true
			}
		}
	}
	return used, nil
}
