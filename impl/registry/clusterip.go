package registry

import (
	"context"
	"fmt"
	"net/netip"

	"github.com/converge-dev/converge/impl/api"
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
	for _, o := range list.GetItems() {
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

// keepClusterIP carries the stored clusterIP over an update that leaves it
// empty, as Kubernetes does (the field is immutable once set).
func keepClusterIP(old, next api.Object) {
	o, ok1 := old.(*api.Service)
	n, ok2 := next.(*api.Service)
	if ok1 && ok2 && n.Spec.ClusterIP == "" && o.Spec.ClusterIP != "" {
		n.Spec.ClusterIP, n.Spec.ClusterIPs = o.Spec.ClusterIP, append([]string(nil), o.Spec.ClusterIPs...)
	}
}
