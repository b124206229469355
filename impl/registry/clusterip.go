package registry

import (
	"context"
	"fmt"
	"net/netip"
	"reflect"
	"slices"

	"github.com/converge-dev/converge/impl/api"
	corev1 "k8s.io/api/core/v1"
)

// allocateClusterIP gives a Service created without a clusterIP the lowest
// free address of the configured range: deterministic, and reused once its
// Service is gone. Headless and ExternalName Services get none. The scan
// and the create are serialised by allocMu, so one registry never hands the
// same address out twice; registries sharing a store do not coordinate.
func (r *Registry) allocateClusterIP(ctx context.Context, obj api.Object) error {
	s, ok := obj.(*api.Service)
	if !ok || !r.serviceIPs.IsValid() || s.Spec.ClusterIP != "" || s.Spec.Type == api.ServiceTypeExternalName {
		return nil
	}
	list, err := r.List(ctx, "services", "", ListOptions{})
	if err != nil {
		return err
	}
	used := map[netip.Addr]bool{}
	for _, o := range api.Items(list) {
		if ip, err := netip.ParseAddr(o.(*api.Service).Spec.ClusterIP); err == nil {
			used[ip] = true
		}
	}
	// The range's first address is its network address: skip it.
	for ip := r.serviceIPs.Addr().Next(); r.serviceIPs.Contains(ip); ip = ip.Next() {
		if !used[ip] {
			s.Spec.ClusterIP, s.Spec.ClusterIPs = ip.String(), []string{ip.String()}
			return nil
		}
	}
	return api.NewInternalError(fmt.Errorf("registry: no free cluster IP in %s", r.serviceIPs))
}

// keepClusterIP carries the stored clusterIP, and the IP families that go
// with it, over an update that leaves them empty, as Kubernetes does (the
// field is immutable once set).
func keepClusterIP(old, next api.Object) {
	o, ok1 := old.(*api.Service)
	n, ok2 := next.(*api.Service)
	if !ok1 || !ok2 {
		return
	}
	if n.Spec.ClusterIP == "" && o.Spec.ClusterIP != "" {
		n.Spec.ClusterIP, n.Spec.ClusterIPs = o.Spec.ClusterIP, append([]string(nil), o.Spec.ClusterIPs...)
	}
	if n.Spec.Type != api.ServiceTypeExternalName && n.Spec.ClusterIP == o.Spec.ClusterIP {
		if len(n.Spec.IPFamilies) == 0 {
			n.Spec.IPFamilies = append([]corev1.IPFamily(nil), o.Spec.IPFamilies...)
		}
		if n.Spec.IPFamilyPolicy == nil && o.Spec.IPFamilyPolicy != nil {
			n.Spec.IPFamilyPolicy = ptr(*o.Spec.IPFamilyPolicy)
		}
	}
}

// dropTypeDependentFields clears, on an update that changes a Service's
// type, the fields the new type does not take, where the update left them
// as they were: what upstream's service strategy does, so that a type
// change need not spell out their removal.
func dropTypeDependentFields(old, next api.Object) {
	o, ok1 := old.(*api.Service)
	n, ok2 := next.(*api.Service)
	if !ok1 || !ok2 || o.Spec.Type == n.Spec.Type {
		return
	}
	os, ns := &o.Spec, &n.Spec
	lb := func(s *api.ServiceSpec) bool { return s.Type == api.ServiceTypeLoadBalancer }
	if lb(os) && !lb(ns) {
		if reflect.DeepEqual(ns.AllocateLoadBalancerNodePorts, os.AllocateLoadBalancerNodePorts) {
			ns.AllocateLoadBalancerNodePorts = nil
		}
		if reflect.DeepEqual(ns.LoadBalancerClass, os.LoadBalancerClass) {
			ns.LoadBalancerClass = nil
		}
		if ns.HealthCheckNodePort == os.HealthCheckNodePort {
			ns.HealthCheckNodePort = 0
		}
	}
	if externallyAccessible(os) && !externallyAccessible(ns) && ns.ExternalTrafficPolicy == os.ExternalTrafficPolicy {
		ns.ExternalTrafficPolicy = ""
	}
	if os.Type != api.ServiceTypeExternalName && ns.Type == api.ServiceTypeExternalName {
		if reflect.DeepEqual(ns.InternalTrafficPolicy, os.InternalTrafficPolicy) {
			ns.InternalTrafficPolicy = nil
		}
		if reflect.DeepEqual(ns.IPFamilyPolicy, os.IPFamilyPolicy) {
			ns.IPFamilyPolicy = nil
		}
		if slices.Equal(ns.IPFamilies, os.IPFamilies) {
			ns.IPFamilies = nil
		}
	}
}

// externallyAccessible is upstream's apiservice.ExternallyAccessible.
func externallyAccessible(s *api.ServiceSpec) bool {
	return s.Type == api.ServiceTypeLoadBalancer || s.Type == api.ServiceTypeNodePort ||
		(s.Type == api.ServiceTypeClusterIP && len(s.ExternalIPs) > 0)
}

// initIPFamilies fills in a created Service's IP family fields as
// upstream's allocator does on a single-stack cluster: the policy is
// SingleStack, and the families the cluster's one family, unless the
// Service says otherwise. A headless Service without a selector defaults
// to RequireDualStack, which it may be on any cluster (it has no cluster
// IPs); any other asking for RequireDualStack is refused. An ExternalName
// Service has no families.
func (r *Registry) initIPFamilies(s *api.Service) error {
	if !r.serviceIPs.IsValid() || s.Spec.Type == api.ServiceTypeExternalName {
		return nil
	}
	family := corev1.IPv4Protocol
	if r.serviceIPs.Addr().Is6() {
		family = corev1.IPv6Protocol
	}
	selectorless := s.Spec.ClusterIP == api.ClusterIPNone && len(s.Spec.Selector) == 0
	if s.Spec.IPFamilyPolicy == nil {
		policy := corev1.IPFamilyPolicySingleStack
		if selectorless {
			policy = corev1.IPFamilyPolicyRequireDualStack
		}
		s.Spec.IPFamilyPolicy = &policy
	}
	if *s.Spec.IPFamilyPolicy == corev1.IPFamilyPolicyRequireDualStack && !selectorless {
		return api.NewInvalid(api.GroupKind{Kind: "Service"}, s.Name, api.FieldErrors{{Type: api.CauseTypeFieldValueInvalid,
			Field: "spec.ipFamilyPolicy", BadValue: string(*s.Spec.IPFamilyPolicy), Detail: "this cluster is not configured for dual-stack services"}})
	}
	if len(s.Spec.IPFamilies) == 0 {
		s.Spec.IPFamilies = []corev1.IPFamily{family}
	}
	return nil
}

func ptr[T any](v T) *T { return &v }
