package registry_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/converge-dev/converge/impl/api"
)

func nodePortSvc(name string, nodePorts ...int32) *api.Service {
	s := svcWithIP(name, "")
	s.Spec.Type = api.ServiceTypeNodePort
	s.Spec.Ports = nil
	for i, np := range nodePorts {
		s.Spec.Ports = append(s.Spec.Ports, api.ServicePort{Name: "p" + string(rune('a'+i)), Port: int32(80 + i), NodePort: np})
	}
	return s
}

func nodePortsOf(o api.Object) []int32 {
	var out []int32
	for _, p := range o.(*api.Service).Spec.Ports {
		out = append(out, p.NodePort)
	}
	return out
}

// NodePort and LoadBalancer Services get the lowest free node ports, keep
// them across an update that leaves them out, honour a free one asked for,
// refuse a taken or out-of-range one as upstream words it, and drop them
// when the type no longer has node ports.
func TestNodePortAllocation(t *testing.T) {
	r, ctx := newRegistry(t)

	a, err := r.Create(ctx, nodePortSvc("a", 0, 30001))
	require.NoError(t, err)
	require.Equal(t, []int32{30000, 30001}, nodePortsOf(a), "the asked-for port is kept out of the free ones")
	lb := nodePortSvc("lb", 0)
	lb.Spec.Type = api.ServiceTypeLoadBalancer
	lbOut, err := r.Create(ctx, lb)
	require.NoError(t, err)
	require.Equal(t, []int32{30002}, nodePortsOf(lbOut))
	plain, err := r.Create(ctx, svcWithIP("plain", ""))
	require.NoError(t, err)
	require.Equal(t, []int32{0}, nodePortsOf(plain), "a ClusterIP Service gets none")

	_, err = r.Create(ctx, nodePortSvc("taken", 30001))
	requireInvalid(t, err, `Service "taken" is invalid: spec.ports[0].nodePort: Invalid value: 30001: provided port is already allocated`)
	_, err = r.Create(ctx, nodePortSvc("low", 80))
	requireInvalid(t, err, `Service "low" is invalid: spec.ports[0].nodePort: Invalid value: 80: provided port is not in the valid range. The range of valid ports is 30000-32767`)
	forbidden := svcWithIP("forbidden", "")
	forbidden.Spec.Ports[0].NodePort = 30100
	_, err = r.Create(ctx, forbidden)
	requireInvalid(t, err, "spec.ports[0].nodePort: Forbidden: may not be used when `type` is 'ClusterIP'")

	edit := nodePortSvc("a", 0, 0) // kubectl replace of a manifest without node ports
	edit.ResourceVersion = api.Meta(a).ResourceVersion
	a, err = r.Update(ctx, edit)
	require.NoError(t, err)
	require.Equal(t, []int32{30000, 30001}, nodePortsOf(a))

	toClusterIP := api.DeepCopy(a.(*api.Service))
	toClusterIP.Spec.Type = api.ServiceTypeClusterIP
	a, err = r.Update(ctx, toClusterIP)
	require.NoError(t, err)
	require.Equal(t, []int32{0, 0}, nodePortsOf(a))

	reuse, err := r.Create(ctx, nodePortSvc("reuse", 0))
	require.NoError(t, err)
	require.Equal(t, []int32{30000}, nodePortsOf(reuse), "a released port is the lowest free one again")
}

// requireInvalid wants a 422 Invalid whose message contains want.
func requireInvalid(t *testing.T, err error, want string) {
	t.Helper()
	wantReason(t, err, api.StatusReasonInvalid, 422)
	require.Contains(t, err.Error(), want)
}

// A LoadBalancer that turns node port allocation off gets only the ports
// it asks for; changing a Service's type drops the fields the new type
// does not take (traffic policy, load balancer class, allocation) where
// the update left them as they were, as upstream's strategy does.
func TestLoadBalancerNodePortsOff(t *testing.T) {
	r, ctx := newRegistry(t)
	lb := nodePortSvc("lb", 0, 30500)
	lb.Spec.Type = api.ServiceTypeLoadBalancer
	off, class := false, "example.com/lb"
	lb.Spec.AllocateLoadBalancerNodePorts, lb.Spec.LoadBalancerClass = &off, &class
	out, err := r.Create(ctx, lb)
	require.NoError(t, err)
	require.Equal(t, []int32{0, 30500}, nodePortsOf(out))
	require.Equal(t, corev1.ServiceExternalTrafficPolicyCluster, out.(*api.Service).Spec.ExternalTrafficPolicy)

	toClusterIP := api.DeepCopy(out.(*api.Service))
	toClusterIP.Spec.Type = api.ServiceTypeClusterIP
	toClusterIP.Spec.Ports[1].NodePort = 0
	out, err = r.Update(ctx, toClusterIP)
	require.NoError(t, err)
	s := out.(*api.Service).Spec
	require.Equal(t, corev1.ServiceExternalTrafficPolicy(""), s.ExternalTrafficPolicy)
	require.Nil(t, s.AllocateLoadBalancerNodePorts)
	require.Nil(t, s.LoadBalancerClass)
	require.NotNil(t, s.InternalTrafficPolicy)
}
