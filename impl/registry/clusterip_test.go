package registry_test

import (
	"fmt"
	"net/netip"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/impl/registry"
	"github.com/converge-dev/converge/impl/store/storetest"
)

func svcWithIP(name, clusterIP string) *api.Service {
	return &api.Service{
		ObjectMeta: api.ObjectMeta{Name: name},
		Spec: api.ServiceSpec{ClusterIP: clusterIP, Selector: map[string]string{"app": name},
			Ports: []api.ServicePort{{Port: 80, TargetPort: api.FromInt32(8080)}}},
	}
}

// Services get the lowest free address of the range, keep it across an
// update that omits it, and free it on delete; a chosen one is honoured.
func TestClusterIPAllocation(t *testing.T) {
	_, ctx := newRegistry(t)
	r := registry.New(registry.Config{Store: storetest.Store(t), Clock: func() time.Time { return epoch },
		ServiceIPRange: netip.MustParsePrefix("127.200.0.0/16")})
	ipOf := func(o api.Object) string { return o.(*api.Service).Spec.ClusterIP }

	a, err := r.Create(ctx, svcWithIP("a", ""))
	require.NoError(t, err)
	require.Equal(t, "127.200.0.1", ipOf(a))
	require.Equal(t, []string{"127.200.0.1"}, a.(*api.Service).Spec.ClusterIPs)
	fixed, err := r.Create(ctx, svcWithIP("fixed", "127.200.0.2"))
	require.NoError(t, err)
	require.Equal(t, "127.200.0.2", ipOf(fixed))
	b, err := r.Create(ctx, svcWithIP("b", ""))
	require.NoError(t, err)
	require.Equal(t, "127.200.0.3", ipOf(b))
	headless, err := r.Create(ctx, svcWithIP("headless", api.ClusterIPNone))
	require.NoError(t, err)
	require.Equal(t, api.ClusterIPNone, ipOf(headless))

	edit := svcWithIP("a", "")
	edit.ResourceVersion = api.Meta(a).ResourceVersion
	updated, err := r.Update(ctx, edit)
	require.NoError(t, err)
	require.Equal(t, "127.200.0.1", ipOf(updated))

	_, err = r.Delete(ctx, "services", "default", "a", api.DeleteOptions{})
	require.NoError(t, err)
	c, err := r.Create(ctx, svcWithIP("c", ""))
	require.NoError(t, err)
	require.Equal(t, "127.200.0.1", ipOf(c), "a freed address is the lowest free one again")
}

// Without a range, nothing is allocated (the stepped driver's registry).
func TestNoClusterIPWithoutRange(t *testing.T) {
	r, ctx := newRegistry(t)
	s, err := r.Create(ctx, svcWithIP("a", ""))
	require.NoError(t, err)
	require.Empty(t, s.(*api.Service).Spec.ClusterIP)
}

// A created Service's IP families are filled in as on a single-stack
// cluster: SingleStack and the range's family, RequireDualStack for a
// headless Service without a selector; RequireDualStack is refused
// otherwise; an ExternalName Service has none.
func TestServiceIPFamilies(t *testing.T) {
	_, ctx := newRegistry(t)
	r := registry.New(registry.Config{Store: storetest.Store(t), Clock: func() time.Time { return epoch },
		ServiceIPRange: netip.MustParsePrefix("127.200.0.0/16")})
	families := func(o api.Object) string {
		s := o.(*api.Service).Spec
		if s.IPFamilyPolicy == nil {
			return fmt.Sprint(s.IPFamilies)
		}
		return fmt.Sprint(string(*s.IPFamilyPolicy), " ", s.IPFamilies)
	}
	plain, err := r.Create(ctx, svcWithIP("plain", ""))
	require.NoError(t, err)
	require.Equal(t, "SingleStack [IPv4]", families(plain))
	prefer := svcWithIP("prefer", "")
	prefer.Spec.IPFamilyPolicy = ptr(corev1.IPFamilyPolicyPreferDualStack)
	preferOut, err := r.Create(ctx, prefer)
	require.NoError(t, err)
	require.Equal(t, "PreferDualStack [IPv4]", families(preferOut))
	headless := svcWithIP("headless", api.ClusterIPNone)
	headless.Spec.Selector = nil
	headlessOut, err := r.Create(ctx, headless)
	require.NoError(t, err)
	require.Equal(t, "RequireDualStack [IPv4]", families(headlessOut))
	dual := svcWithIP("dual", "")
	dual.Spec.IPFamilyPolicy = ptr(corev1.IPFamilyPolicyRequireDualStack)
	_, err = r.Create(ctx, dual)
	requireInvalid(t, err, `spec.ipFamilyPolicy: Invalid value: "RequireDualStack": this cluster is not configured for dual-stack services`)
	ext := &api.Service{ObjectMeta: api.ObjectMeta{Name: "ext"}, Spec: api.ServiceSpec{Type: api.ServiceTypeExternalName, ExternalName: "db.example.com"}}
	extOut, err := r.Create(ctx, ext)
	require.NoError(t, err)
	require.Equal(t, "[]", families(extOut))
}
