package project

import (
	"fmt"
	"slices"
	"sort"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/model"
)

// A Service projects to its selector, its type when ExternalName, and its
// ports (name, protocol, number, target); Endpoints to their ready
// addresses and the ports of the subset that holds them. Writing back
// keeps what the model does not carry (a port's nodePort and appProtocol,
// an address's targetRef uid and hostname, not-ready addresses).

func serviceToModel(s *api.Service, m model.Meta) *model.Service {
	return &model.Service{Meta: m, Selector: cloneMap(s.Spec.Selector), Ports: servicePortsOf(s),
		ExternalName: s.Spec.Type == api.ServiceTypeExternalName}
}

func servicePortsOf(s *api.Service) []model.ServicePort {
	var out []model.ServicePort
	for _, p := range s.Spec.Ports {
		sp := model.ServicePort{Name: p.Name, Protocol: string(p.Protocol), Port: int(p.Port)}
		if p.TargetPort.Type == intstr.String {
			sp.TargetName = p.TargetPort.StrVal
		} else {
			sp.TargetPort = p.TargetPort.IntValue()
		}
		out = append(out, sp)
	}
	return out
}

func newService(o *model.Service) *api.Service {
	s := &api.Service{TypeMeta: typeMeta(model.KindService), ObjectMeta: objectMeta(model.KindService, &o.Meta, nil)}
	applyService(s, o)
	return s
}

// applyService writes the selector, the type when it changes to or from
// ExternalName, and the ports, each keeping the node port and app
// protocol of the port of the same name it replaces.
func applyService(s *api.Service, o *model.Service) {
	if !sameMap(s.Spec.Selector, o.Selector) {
		s.Spec.Selector = cloneMap(o.Selector)
	}
	if ext := s.Spec.Type == api.ServiceTypeExternalName; ext != o.ExternalName {
		s.Spec.Type = api.ServiceTypeClusterIP
		if o.ExternalName {
			s.Spec.Type = api.ServiceTypeExternalName
		}
	}
	if slices.Equal(servicePortsOf(s), o.Ports) {
		return
	}
	old := s.Spec.Ports
	s.Spec.Ports = nil
	for _, p := range o.Ports {
		sp := api.ServicePort{}
		if i := slices.IndexFunc(old, func(x api.ServicePort) bool { return x.Name == p.Name }); i >= 0 {
			sp = old[i]
		}
		sp.Name, sp.Protocol, sp.Port = p.Name, corev1.Protocol(p.Protocol), i32(p.Port)
		sp.TargetPort = api.FromInt32(i32(p.TargetPort))
		if p.TargetName != "" {
			sp.TargetPort = api.FromString(p.TargetName)
		}
		s.Spec.Ports = append(s.Spec.Ports, sp)
	}
}

// endpointsToModel reads the ready addresses of every subset (converge
// writes one) and the ports of the first subset with ready addresses.
func endpointsToModel(e *api.Endpoints, m model.Meta) *model.Endpoints {
	return &model.Endpoints{Meta: m, Addresses: addressesOf(e), Ports: endpointsPortsOf(e)}
}

func addressesOf(e *api.Endpoints) []model.Address {
	var out []model.Address
	for _, ss := range e.Subsets {
		for _, a := range ss.Addresses {
			out = append(out, model.Address{Pod: targetName(a), IP: a.IP, Node: deref(a.NodeName)})
		}
	}
	return sortedAddresses(out)
}

func targetName(a api.EndpointAddress) string {
	if a.TargetRef == nil {
		return ""
	}
	return a.TargetRef.Name
}

func endpointsPortsOf(e *api.Endpoints) []model.EndpointPort {
	for _, ss := range e.Subsets {
		if len(ss.Addresses) == 0 {
			continue
		}
		var out []model.EndpointPort
		for _, p := range ss.Ports {
			out = append(out, model.EndpointPort{Name: p.Name, Protocol: string(p.Protocol), Port: int(p.Port)})
		}
		model.SortEndpointPorts(out)
		return out
	}
	return nil
}

// serviceTemplate refuses a template that is not a Service (none is
// fine): Endpoints and EndpointSlices are made from their Service.
func serviceTemplate(kind string, template api.Object) error {
	switch t := template.(type) {
	case nil:
	case *api.Service:
		if t == nil {
			return fmt.Errorf("%w: nil Service template", ErrMismatch)
		}
	default:
		return fmt.Errorf("%w: %s take a Service template, not %T", ErrMismatch, kind, template)
	}
	return nil
}

// newEndpoints takes the Service as template, or none.
func newEndpoints(o *model.Endpoints, template api.Object) (*api.Endpoints, error) {
	e := &api.Endpoints{TypeMeta: typeMeta(model.KindEndpoints), ObjectMeta: objectMeta(model.KindEndpoints, &o.Meta, template)}
	if err := serviceTemplate("Endpoints", template); err != nil {
		return nil, err
	}
	writeEndpoints(e, o)
	return e, nil
}

func applyEndpoints(e *api.Endpoints, o *model.Endpoints) {
	if slices.Equal(addressesOf(e), sortedAddresses(o.Addresses)) && slices.Equal(endpointsPortsOf(e), o.Ports) {
		return
	}
	writeEndpoints(e, o)
}

// writeEndpoints rebuilds the single subset: the model's addresses sorted
// by pod, reusing an existing address's extra fields (targetRef uid,
// hostname), the base's not-ready addresses minus the now-ready pods, and
// the model's ports (an app protocol kept by name). Kubernetes rejects a
// subset without addresses, so with none there is no subset and no port.
func writeEndpoints(e *api.Endpoints, o *model.Endpoints) {
	var old, notReady []api.EndpointAddress
	var oldPorts []api.EndpointPort
	for _, ss := range e.Subsets {
		old = append(old, ss.Addresses...)
		notReady = append(notReady, ss.NotReadyAddresses...)
		oldPorts = append(oldPorts, ss.Ports...)
	}
	want := sortedAddresses(o.Addresses)
	ss := api.EndpointSubset{}
	ready := map[string]bool{}
	for _, a := range want {
		ready[a.Pod] = true
		i := slices.IndexFunc(old, func(x api.EndpointAddress) bool {
			return targetName(x) == a.Pod && x.IP == a.IP && deref(x.NodeName) == a.Node
		})
		if i >= 0 {
			ss.Addresses = append(ss.Addresses, old[i])
			continue
		}
		ss.Addresses = append(ss.Addresses, api.EndpointAddress{IP: a.IP, NodeName: ptr(a.Node),
			TargetRef: &api.ObjectReference{Kind: "Pod", Namespace: e.Namespace, Name: a.Pod}})
	}
	for _, a := range notReady {
		if !ready[targetName(a)] {
			ss.NotReadyAddresses = append(ss.NotReadyAddresses, a)
		}
	}
	if len(ss.Addresses) == 0 && len(ss.NotReadyAddresses) == 0 {
		e.Subsets = nil
		return
	}
	for _, p := range o.Ports {
		ep := api.EndpointPort{Name: p.Name, Protocol: corev1.Protocol(p.Protocol), Port: i32(p.Port)}
		if i := slices.IndexFunc(oldPorts, func(x api.EndpointPort) bool { return x.Name == p.Name }); i >= 0 {
			ep.AppProtocol = oldPorts[i].AppProtocol
		}
		ss.Ports = append(ss.Ports, ep)
	}
	e.Subsets = []api.EndpointSubset{ss}
}

// sortedAddresses copies as sorted by pod name, nil when empty, as
// ToModel returns them.
func sortedAddresses(as []model.Address) []model.Address {
	if len(as) == 0 {
		return nil
	}
	out := slices.Clone(as)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Pod < out[j].Pod })
	return out
}
