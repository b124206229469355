package registry_test

import (
	"net/netip"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

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
	edit.ResourceVersion = a.GetObjectMeta().ResourceVersion
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
