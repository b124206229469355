package api

import (
	"fmt"
	"net/netip"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// An EndpointSlice is defaulted and checked as upstream's discovery
// strategy does: the limits that keep one slice small (1000 endpoints of
// 1 to 100 addresses, 100 ports), addresses that are what addressType
// says, ports named and unique, and an addressType fixed at creation.

const (
	maxSliceEndpoints = 1000
	maxSliceAddresses = 100
	maxSlicePorts     = 100
	maxSliceZoneHints = 8
)

var (
	supportedAddressTypes = []discoveryv1.AddressType{discoveryv1.AddressTypeFQDN, discoveryv1.AddressTypeIPv4,
		discoveryv1.AddressTypeIPv6}
	supportedSliceProtocols = []corev1.Protocol{corev1.ProtocolSCTP, corev1.ProtocolTCP, corev1.ProtocolUDP}
)

// defaultEndpointSlice: a port's name is "" and its protocol TCP when
// unset, as discovery/v1's SetDefaults_EndpointPort fills them; false if
// obj is not a slice.
func defaultEndpointSlice(obj Object) bool {
	s, ok := obj.(*EndpointSlice)
	if !ok {
		return false
	}
	for i := range s.Ports {
		p := &s.Ports[i]
		if p.Name == nil {
			p.Name = ptr("")
		}
		if p.Protocol == nil {
			p.Protocol = ptr(corev1.ProtocolTCP)
		}
	}
	return true
}

// validateEndpointSlice checks a slice on create and on update; false if
// obj is not one.
func validateEndpointSlice(e *errs, obj Object, km kindMeta) bool {
	s, ok := obj.(*EndpointSlice)
	if !ok {
		return false
	}
	validateMeta(e, &s.ObjectMeta, km, apivalidation.NameIsDNSSubdomain)
	switch {
	case s.AddressType == "":
		e.required("addressType", "")
	case !containsAddressType(s.AddressType):
		notSupported(e, "addressType", string(s.AddressType), supportedAddressTypes)
	}
	validateSliceEndpoints(e, s.Endpoints, s.AddressType, "endpoints")
	validateSlicePorts(e, s.Ports, "ports")
	return true
}

func containsAddressType(t discoveryv1.AddressType) bool {
	for _, s := range supportedAddressTypes {
		if s == t {
			return true
		}
	}
	return false
}

func validateSliceEndpoints(e *errs, eps []discoveryv1.Endpoint, t discoveryv1.AddressType, p fieldPath) {
	if len(eps) > maxSliceEndpoints {
		e.add(tooMany(p, len(eps), maxSliceEndpoints))
		return
	}
	for i := range eps {
		ep, ip := &eps[i], p.index(i)
		ap := ip.child("addresses")
		switch n := len(ep.Addresses); {
		case n == 0:
			e.required(ap, "must contain at least 1 address")
		case n > maxSliceAddresses:
			e.add(tooMany(ap, n, maxSliceAddresses))
		}
		for j, a := range ep.Addresses {
			e.invalidEach(ap.index(j), a, sliceAddressErrors(t, a))
		}
		if ep.NodeName != nil {
			e.invalidEach(ip.child("nodeName"), *ep.NodeName, validation.IsDNS1123Subdomain(*ep.NodeName))
		}
		if ep.Hostname != nil {
			e.invalidEach(ip.child("hostname"), *ep.Hostname, validation.IsDNS1123Label(*ep.Hostname))
		}
		if h := ep.Hints; h != nil {
			validateZoneHints(e, h, ip.child("hints"))
		}
	}
}

// sliceAddressErrors are the messages for one address of a slice of type
// t; an unknown type's addresses are not checked (addressType says so).
func sliceAddressErrors(t discoveryv1.AddressType, a string) []string {
	switch t {
	case discoveryv1.AddressTypeIPv4, discoveryv1.AddressTypeIPv6:
		ip, err := netip.ParseAddr(a)
		if err != nil || ip.Zone() != "" || ip.Is4In6() || ip.Is4() != (t == discoveryv1.AddressTypeIPv4) {
			return []string{"must be a valid " + string(t) + " address"}
		}
		return endpointIPErrors(ip)
	case discoveryv1.AddressTypeFQDN:
		return detailsOf(validation.IsFullyQualifiedDomainName(field.NewPath(""), a))
	}
	return nil
}

// endpointIPErrors: an endpoint may not be an address no other host can
// reach, as upstream's ValidateEndpointIP says, with one exception:
// converge's pods live on loopback (model.PodIP, 127.100.0.0/16), so a
// slice may hold loopback addresses, as converge's Endpoints may.
func endpointIPErrors(ip netip.Addr) []string {
	switch {
	case ip.IsUnspecified():
		return []string{fmt.Sprintf("may not be unspecified (%s)", ip)}
	case ip.IsLinkLocalUnicast():
		return []string{"may not be in the link-local range (169.254.0.0/16, fe80::/10)"}
	case ip.IsLinkLocalMulticast():
		return []string{"may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)"}
	}
	return nil
}

func validateZoneHints(e *errs, h *discoveryv1.EndpointHints, p fieldPath) {
	zp := p.child("forZones")
	if len(h.ForZones) > maxSliceZoneHints {
		e.add(tooMany(zp, len(h.ForZones), maxSliceZoneHints))
		return
	}
	seen := map[string]bool{}
	for i, z := range h.ForZones {
		np := zp.index(i).child("name")
		if seen[z.Name] {
			e.duplicate(np, z.Name)
		}
		seen[z.Name] = true
		e.invalidEach(np, z.Name, validation.IsValidLabelValue(z.Name))
	}
}

func validateSlicePorts(e *errs, ports []discoveryv1.EndpointPort, p fieldPath) {
	if len(ports) > maxSlicePorts {
		e.add(tooMany(p, len(ports), maxSlicePorts))
		return
	}
	seen := map[string]bool{}
	for i, port := range ports {
		ip := p.index(i)
		name := ""
		if port.Name != nil {
			name = *port.Name
		}
		if name != "" {
			e.invalidEach(ip.child("name"), name, validation.IsDNS1123Label(name))
		}
		if seen[name] {
			e.duplicate(ip.child("name"), name)
		}
		seen[name] = true
		switch {
		case port.Protocol == nil:
			e.required(ip.child("protocol"), "")
		case *port.Protocol != corev1.ProtocolTCP && *port.Protocol != corev1.ProtocolUDP && *port.Protocol != corev1.ProtocolSCTP:
			notSupported(e, ip.child("protocol"), string(*port.Protocol), supportedSliceProtocols)
		}
		if port.AppProtocol != nil {
			e.invalidEach(ip.child("appProtocol"), *port.AppProtocol, validation.IsQualifiedName(*port.AppProtocol))
		}
	}
}

// validateEndpointSliceUpdate: a slice's addressType is fixed once it is
// created.
func validateEndpointSliceUpdate(e *errs, old, obj Object) {
	if s, ok := obj.(*EndpointSlice); ok {
		immutable(e, "addressType", s.AddressType, old.(*EndpointSlice).AddressType)
	}
}

// tooMany is upstream's field.TooMany: the count and the cap.
func tooMany(p fieldPath, n, max int) *FieldError {
	return &FieldError{Type: CauseTypeFieldValueTooMany, Field: p.String(), BadValue: n,
		Detail: fmt.Sprintf("must have at most %d items", max)}
}

// detailsOf is the messages of apimachinery field errors, for the checks
// that return them rather than strings.
func detailsOf(l field.ErrorList) []string {
	out := make([]string, len(l))
	for i, fe := range l {
		out[i] = fe.Detail
	}
	return out
}
