package project

import (
	"slices"
	"sort"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"

	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/model"
)

// An EndpointSlice projects to the model's: its endpoints by pod (the
// targetRef), address, node and conditions, and its ports. Writing back
// keeps what the model does not carry (an endpoint's targetRef uid,
// hostname, zone; a port's app protocol).

func endpointSliceToModel(e *api.EndpointSlice, m model.Meta) *model.EndpointSlice {
	return &model.EndpointSlice{Meta: m, Endpoints: sliceEndpointsOf(e), Ports: slicePortsOf(e)}
}

func sliceEndpointsOf(e *api.EndpointSlice) []model.SliceEndpoint {
	var out []model.SliceEndpoint
	for _, ep := range e.Endpoints {
		se := model.SliceEndpoint{Pod: sliceTarget(ep), Node: deref(ep.NodeName),
			Ready: deref(ep.Conditions.Ready), Serving: deref(ep.Conditions.Serving), Terminating: deref(ep.Conditions.Terminating)}
		if len(ep.Addresses) > 0 {
			se.IP = ep.Addresses[0]
		}
		out = append(out, se)
	}
	return sortedSliceEndpoints(out)
}

func sliceTarget(ep discoveryv1.Endpoint) string {
	if ep.TargetRef == nil {
		return ""
	}
	return ep.TargetRef.Name
}

func slicePortsOf(e *api.EndpointSlice) []model.EndpointPort {
	var out []model.EndpointPort
	for _, p := range e.Ports {
		out = append(out, model.EndpointPort{Name: deref(p.Name), Protocol: string(deref(p.Protocol)), Port: int(deref(p.Port))})
	}
	model.SortEndpointPorts(out)
	return out
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

// newEndpointSlice takes the Service (the slice's owner) as template, or
// none.
func newEndpointSlice(o *model.EndpointSlice, template api.Object) (*api.EndpointSlice, error) {
	e := &api.EndpointSlice{TypeMeta: typeMeta(model.KindEndpointSlice), ObjectMeta: objectMeta(model.KindEndpointSlice, &o.Meta, template),
		AddressType: discoveryv1.AddressTypeIPv4}
	if err := serviceTemplate("EndpointSlices", template); err != nil {
		return nil, err
	}
	writeEndpointSlice(e, o)
	return e, nil
}

func applyEndpointSlice(e *api.EndpointSlice, o *model.EndpointSlice) {
	if slices.Equal(sliceEndpointsOf(e), sortedSliceEndpoints(o.Endpoints)) && slices.Equal(slicePortsOf(e), o.Ports) {
		return
	}
	writeEndpointSlice(e, o)
}

// writeEndpointSlice rebuilds the endpoints in pod order, reusing an
// existing endpoint's extra fields, and the model's ports (an app
// protocol kept by name).
func writeEndpointSlice(e *api.EndpointSlice, o *model.EndpointSlice) {
	old := e.Endpoints
	e.Endpoints = nil
	for _, se := range sortedSliceEndpoints(o.Endpoints) {
		ep := discoveryv1.Endpoint{Addresses: []string{se.IP},
			TargetRef: &corev1.ObjectReference{Kind: "Pod", Namespace: e.Namespace, Name: se.Pod}}
		if i := slices.IndexFunc(old, func(x discoveryv1.Endpoint) bool { return sliceTarget(x) == se.Pod }); i >= 0 {
			ep = *old[i].DeepCopy()
			ep.Addresses = []string{se.IP}
		}
		ep.NodeName = nil
		if se.Node != "" {
			ep.NodeName = ptr(se.Node)
		}
		ep.Conditions = discoveryv1.EndpointConditions{Ready: ptr(se.Ready), Serving: ptr(se.Serving), Terminating: ptr(se.Terminating)}
		e.Endpoints = append(e.Endpoints, ep)
	}
	oldPorts := e.Ports
	e.Ports = nil
	for _, p := range o.Ports {
		ep := discoveryv1.EndpointPort{Name: ptr(p.Name), Protocol: ptr(corev1.Protocol(p.Protocol)), Port: ptr(i32(p.Port))}
		if i := slices.IndexFunc(oldPorts, func(x discoveryv1.EndpointPort) bool { return deref(x.Name) == p.Name }); i >= 0 {
			ep.AppProtocol = oldPorts[i].AppProtocol
		}
		e.Ports = append(e.Ports, ep)
	}
}

// sortedSliceEndpoints copies es sorted by pod name, nil when empty, as
// ToModel returns them.
func sortedSliceEndpoints(es []model.SliceEndpoint) []model.SliceEndpoint {
	if len(es) == 0 {
		return nil
	}
	out := slices.Clone(es)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Pod < out[j].Pod })
	return out
}
