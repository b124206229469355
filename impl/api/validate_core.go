package api

import (
	"fmt"
	"maps"
	"net/netip"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/validate/content"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

var supportedServiceTypes = []ServiceType{ServiceTypeClusterIP, ServiceTypeExternalName, ServiceTypeLoadBalancer, ServiceTypeNodePort}

func validateServiceSpec(e *errs, s *ServiceSpec, p fieldPath) {
	headless := s.ClusterIP == ClusterIPNone
	if len(s.Ports) == 0 && !headless && s.Type != ServiceTypeExternalName {
		e.required(p.child("ports"), "")
	}
	names := map[string]bool{}
	type portKey struct {
		Port     int32    `json:"port"`
		Protocol Protocol `json:"protocol"`
	}
	seen := map[portKey]bool{}
	for i, sp := range s.Ports {
		ip := p.child("ports").index(i)
		if len(s.Ports) > 1 && sp.Name == "" {
			e.required(ip.child("name"), "")
		} else if sp.Name != "" {
			e.invalidEach(ip.child("name"), sp.Name, dns1123Label(sp.Name))
			if names[sp.Name] {
				e.duplicate(ip.child("name"), sp.Name)
			}
			names[sp.Name] = true
		}
		e.invalidEach(ip.child("port"), int64(sp.Port), validation.IsValidPortNum(int(sp.Port)))
		validateProtocol(e, sp.Protocol, ip.child("protocol"))
		validatePortNumOrName(e, sp.TargetPort, ip.child("targetPort"))
		if sp.AppProtocol != nil {
			e.invalidEach(ip.child("appProtocol"), *sp.AppProtocol, content.IsLabelKey(*sp.AppProtocol))
		}
		if sp.NodePort != 0 {
			e.invalidEach(ip.child("nodePort"), int64(sp.NodePort), validation.IsValidPortNum(int(sp.NodePort)))
			if s.Type != ServiceTypeNodePort && s.Type != ServiceTypeLoadBalancer && s.Type != "" {
				e.forbidden(ip.child("nodePort"), fmt.Sprintf("may not be used when `type` is '%s'", s.Type))
			}
		}
		k := portKey{sp.Port, sp.Protocol}
		if seen[k] {
			e.duplicate(ip, k)
		}
		seen[k] = true
	}
	validateLabels(e, s.Selector, p.child("selector"))
	switch s.SessionAffinity {
	case "None", "ClientIP":
	case "":
		e.required(p.child("sessionAffinity"), "")
	default:
		notSupported(e, p.child("sessionAffinity"), s.SessionAffinity, []string{"ClientIP", "None"})
	}
	if s.ClusterIP != "" && s.ClusterIP != ClusterIPNone {
		e.addList(legacyIP(p.child("clusterIP"), s.ClusterIP))
	}
	for i, ip := range s.ClusterIPs {
		if ip != ClusterIPNone {
			for range legacyIP(p.child("clusterIPs").index(i), ip) {
				e.invalid(p.child("clusterIPs").index(i), ip, "must be empty, 'None', or a valid IP address")
			}
		}
	}
	if len(s.ClusterIPs) > 0 && s.ClusterIP != "" && s.ClusterIPs[0] != s.ClusterIP {
		e.invalid(p.child("clusterIPs"), s.ClusterIPs, "first value must match `clusterIP`")
	}
	validateServiceTraffic(e, s, p)
	switch {
	case s.Type == "":
		e.required(p.child("type"), "")
	case !slices.Contains(supportedServiceTypes, s.Type):
		notSupported(e, p.child("type"), string(s.Type), supportedServiceTypes)
	case s.Type == ServiceTypeExternalName:
		if s.ExternalName == "" {
			e.required(p.child("externalName"), "")
		} else {
			e.invalidEach(p.child("externalName"), s.ExternalName, dns1123Subdomain(s.ExternalName))
		}
	}
}

// maxClientIPAffinitySeconds is upstream's bound on a client-IP session
// affinity's timeout: one day.
const maxClientIPAffinitySeconds = 86400

// externallyAccessible: a service reachable from outside the cluster, by
// node port, load balancer or external IPs (upstream's
// apiservice.ExternallyAccessible).
func externallyAccessible(s *ServiceSpec) bool {
	return s.Type == ServiceTypeLoadBalancer || s.Type == ServiceTypeNodePort ||
		(s.Type == ServiceTypeClusterIP && len(s.ExternalIPs) > 0)
}

// validateServiceTraffic checks the fields that say how traffic reaches a
// service, with upstream's messages: session affinity's timeout, the
// traffic policies, the load balancer's own fields and the IP families.
func validateServiceTraffic(e *errs, s *ServiceSpec, p fieldPath) {
	cp := p.child("sessionAffinityConfig")
	switch c := s.SessionAffinityConfig; {
	case s.SessionAffinity == "ClientIP" && c == nil:
		e.required(cp, "when session affinity type is ClientIP")
	case s.SessionAffinity == "ClientIP" && c.ClientIP == nil:
		e.required(cp.child("clientIP"), "when session affinity type is ClientIP")
	case s.SessionAffinity == "ClientIP" && c.ClientIP.TimeoutSeconds == nil:
		e.required(cp.child("clientIP", "timeoutSeconds"), "when session affinity type is ClientIP")
	case s.SessionAffinity == "ClientIP":
		if t := *c.ClientIP.TimeoutSeconds; t <= 0 || t > maxClientIPAffinitySeconds {
			e.invalid(cp.child("clientIP", "timeoutSeconds"), t, fmt.Sprintf("must be greater than 0 and less than %d", maxClientIPAffinitySeconds))
		}
	case s.SessionAffinity == "None" && c != nil:
		e.invalid(cp, c, "must not be set when session affinity is None")
	}
	etp := p.child("externalTrafficPolicy")
	switch {
	case !externallyAccessible(s):
		if s.ExternalTrafficPolicy != "" {
			e.invalid(etp, string(s.ExternalTrafficPolicy), "may only be set for externally-accessible services")
		}
	case s.ExternalTrafficPolicy == "":
		e.required(etp, "")
	case s.ExternalTrafficPolicy != corev1.ServiceExternalTrafficPolicyCluster && s.ExternalTrafficPolicy != corev1.ServiceExternalTrafficPolicyLocal:
		notSupported(e, etp, string(s.ExternalTrafficPolicy), []corev1.ServiceExternalTrafficPolicy{corev1.ServiceExternalTrafficPolicyCluster, corev1.ServiceExternalTrafficPolicyLocal})
	}
	needsHealthCheck := s.Type == ServiceTypeLoadBalancer && s.ExternalTrafficPolicy == corev1.ServiceExternalTrafficPolicyLocal
	if s.HealthCheckNodePort != 0 {
		if !needsHealthCheck {
			e.invalid(p.child("healthCheckNodePort"), s.HealthCheckNodePort, "may only be set when `type` is 'LoadBalancer' and `externalTrafficPolicy` is 'Local'")
		} else {
			e.invalidEach(p.child("healthCheckNodePort"), int64(s.HealthCheckNodePort), validation.IsValidPortNum(int(s.HealthCheckNodePort)))
		}
	}
	itp := p.child("internalTrafficPolicy")
	switch {
	case s.InternalTrafficPolicy == nil:
		if s.Type != ServiceTypeExternalName {
			e.required(itp, "")
		}
	case *s.InternalTrafficPolicy != corev1.ServiceInternalTrafficPolicyCluster && *s.InternalTrafficPolicy != corev1.ServiceInternalTrafficPolicyLocal:
		notSupported(e, itp, string(*s.InternalTrafficPolicy), []corev1.ServiceInternalTrafficPolicy{corev1.ServiceInternalTrafficPolicyCluster, corev1.ServiceInternalTrafficPolicyLocal})
	}
	lb := s.Type == ServiceTypeLoadBalancer
	const lbOnly = "may only be used when `type` is 'LoadBalancer'"
	if len(s.LoadBalancerSourceRanges) > 0 {
		// Upstream names this field with a capital L.
		rp := p.child("LoadBalancerSourceRanges")
		if !lb {
			e.forbidden(rp, lbOnly)
		}
		for _, r := range s.LoadBalancerSourceRanges {
			if _, err := netip.ParsePrefix(strings.TrimSpace(r)); err != nil {
				e.invalid(rp, fmt.Sprint(s.LoadBalancerSourceRanges), "must be a list of IP ranges. For example, 10.240.0.0/24,10.250.0.0/24 ")
				break
			}
		}
	}
	switch {
	case lb && s.AllocateLoadBalancerNodePorts == nil:
		e.required(p.child("allocateLoadBalancerNodePorts"), "")
	case !lb && s.AllocateLoadBalancerNodePorts != nil:
		e.forbidden(p.child("allocateLoadBalancerNodePorts"), lbOnly)
	}
	if s.LoadBalancerClass != nil {
		if !lb {
			e.forbidden(p.child("loadBalancerClass"), lbOnly)
		} else {
			e.invalidEach(p.child("loadBalancerClass"), *s.LoadBalancerClass, content.IsLabelKey(*s.LoadBalancerClass))
		}
	}
	if s.IPFamilyPolicy != nil {
		switch *s.IPFamilyPolicy {
		case corev1.IPFamilyPolicySingleStack, corev1.IPFamilyPolicyPreferDualStack, corev1.IPFamilyPolicyRequireDualStack:
		default:
			notSupported(e, p.child("ipFamilyPolicy"), string(*s.IPFamilyPolicy),
				[]corev1.IPFamilyPolicy{corev1.IPFamilyPolicyPreferDualStack, corev1.IPFamilyPolicyRequireDualStack, corev1.IPFamilyPolicySingleStack})
		}
	}
	seen := map[corev1.IPFamily]bool{}
	for i, f := range s.IPFamilies {
		fp := p.child("ipFamilies").index(i)
		switch {
		case f != corev1.IPv4Protocol && f != corev1.IPv6Protocol:
			notSupported(e, fp, string(f), []corev1.IPFamily{corev1.IPv4Protocol, corev1.IPv6Protocol})
		case seen[f]:
			e.duplicate(fp, f)
		}
		seen[f] = true
	}
}

// strictIPCIDR is the StrictIPCIDRValidation gate, off by default upstream:
// these fields take IPs and CIDRs as the apiserver's legacy parsing does.
const strictIPCIDR = false

func legacyIP(p fieldPath, ip string) field.ErrorList {
	return validation.IsValidIPForLegacyField(p.path(), ip, strictIPCIDR, nil)
}

func validateEndpointSubsets(e *errs, subsets []EndpointSubset, p fieldPath) {
	for i, ss := range subsets {
		ip := p.index(i)
		if len(ss.Addresses) == 0 && len(ss.NotReadyAddresses) == 0 {
			e.required(ip, "must specify `addresses` or `notReadyAddresses`")
		}
		for j := range ss.Addresses {
			validateEndpointAddress(e, &ss.Addresses[j], ip.child("addresses").index(j))
		}
		for j := range ss.NotReadyAddresses {
			validateEndpointAddress(e, &ss.NotReadyAddresses[j], ip.child("notReadyAddresses").index(j))
		}
		for j, port := range ss.Ports {
			pp := ip.child("ports").index(j)
			if len(ss.Ports) > 1 && port.Name == "" {
				e.required(pp.child("name"), "")
			} else if port.Name != "" {
				e.invalidEach(pp.child("name"), port.Name, dns1123Label(port.Name))
			}
			e.invalidEach(pp.child("port"), int64(port.Port), validation.IsValidPortNum(int(port.Port)))
			validateProtocol(e, port.Protocol, pp.child("protocol"))
			if port.AppProtocol != nil {
				e.invalidEach(pp.child("appProtocol"), *port.AppProtocol, content.IsLabelKey(*port.AppProtocol))
			}
		}
	}
}

func validateEndpointAddress(e *errs, a *EndpointAddress, p fieldPath) {
	e.addList(legacyIP(p.child("ip"), a.IP))
	if a.Hostname != "" {
		e.invalidEach(p.child("hostname"), a.Hostname, dns1123Label(a.Hostname))
	}
	if a.NodeName != nil && *a.NodeName != "" {
		e.invalidEach(p.child("nodeName"), *a.NodeName, dns1123Subdomain(*a.NodeName))
	}
}

func validateNode(e *errs, n *Node) {
	sp := fieldPath("spec")
	if n.Spec.PodCIDR != "" {
		e.addList(validation.IsValidCIDRForLegacyField(sp.child("podCIDR").path(), n.Spec.PodCIDR, strictIPCIDR, nil))
	}
	for i, c := range n.Spec.PodCIDRs {
		e.addList(validation.IsValidCIDRForLegacyField(sp.child("podCIDRs").index(i).path(), c, strictIPCIDR, nil))
	}
	if len(n.Spec.PodCIDRs) > 0 && n.Spec.PodCIDR != "" && n.Spec.PodCIDRs[0] != n.Spec.PodCIDR {
		e.invalid(sp.child("podCIDRs"), n.Spec.PodCIDRs, "first value must match `podCIDR`")
	}
	type taintKey struct{ key, effect string }
	seen := map[taintKey]bool{}
	for i, t := range n.Spec.Taints {
		ip := sp.child("taints").index(i)
		e.invalidEach(ip.child("key"), t.Key, content.IsLabelKey(t.Key))
		if msgs := content.IsLabelValue(t.Value); len(msgs) > 0 {
			e.invalid(ip.child("value"), t.Value, strings.Join(msgs, ";"))
		}
		validateTaintEffect(e, t.Effect, ip.child("effect"))
		k := taintKey{t.Key, string(t.Effect)}
		if seen[k] {
			e.add(&FieldError{Type: CauseTypeFieldValueDuplicate, Field: ip.String(), BadValue: t,
				Detail: "taints must be unique by key and effect pair"})
		}
		seen[k] = true
	}
	validateNodeStatus(e, n)
}

func validateNodeStatus(e *errs, n *Node) {
	st := fieldPath("status")
	validateResourceQuantities(e, n.Status.Capacity, st.child("capacity"))
	validateResourceQuantities(e, n.Status.Allocatable, st.child("allocatable"))
	for i, a := range n.Status.Addresses {
		if a.Type == "" {
			e.required(st.child("addresses").index(i).child("type"), "")
		}
	}
}

func validateResourceQuantities(e *errs, l ResourceList, p fieldPath) {
	for _, name := range slices.Sorted(maps.Keys(l)) {
		if q := l[name]; q.Sign() < 0 {
			e.invalid(p.key(string(name)), q.String(), "must be greater than or equal to 0")
		}
	}
}

func validateNodeUpdate(e *errs, old, n *Node) {
	if old.Spec.PodCIDR != "" && n.Spec.PodCIDR != old.Spec.PodCIDR {
		e.forbidden("spec.podCIDR", "may not change podCIDR once set")
	}
	if len(old.Spec.PodCIDRs) > 0 && !slices.Equal(old.Spec.PodCIDRs, n.Spec.PodCIDRs) {
		e.forbidden("spec.podCIDRs", "may not change podCIDRs once set")
	}
}

func validateBinding(e *errs, b *Binding) {
	if b.Target.Kind != "" && b.Target.Kind != "Node" {
		notSupported(e, "target.kind", b.Target.Kind, []string{"Node", "<empty>"})
	}
	if b.Target.Name == "" {
		e.required("target.name", "")
	} else {
		e.invalidEach("target.name", b.Target.Name, dns1123Subdomain(b.Target.Name))
	}
}

// standardFinalizers are the finalizer names Kubernetes lets go without a
// domain prefix.
var standardFinalizers = map[string]bool{"kubernetes": true, "orphan": true, "foregroundDeletion": true}

// validateNamespaceFinalizers checks spec.finalizers as upstream's
// validateFinalizerName: a qualified name, and one without a "/" must be
// a standard one.
func validateNamespaceFinalizers(e *errs, fs []corev1.FinalizerName) {
	p := fieldPath("spec").child("finalizers")
	for i, name := range fs {
		f := string(name)
		e.addList(apivalidation.ValidateFinalizerName(f, p.index(i).path()))
		if !strings.Contains(f, "/") && !standardFinalizers[f] {
			e.invalid(p.index(i), f, "name is neither a standard finalizer name nor is it fully qualified")
		}
	}
}
