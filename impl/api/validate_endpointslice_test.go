package api

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
)

const sliceYAML = `apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata:
  name: web-abc12
  labels: {kubernetes.io/service-name: web}
addressType: IPv4
endpoints:
- addresses: [10.0.1.5]
  conditions: {ready: true}
  nodeName: node-1
  hints: {forZones: [{name: zone-a}]}
ports:
- {name: http, port: 8080}
- {name: metrics, port: 9090, protocol: UDP, appProtocol: http}
`

func TestEndpointSliceValidAndDefaulted(t *testing.T) {
	rep := func(old, new string) func(string) string {
		return func(s string) string { return strings.Replace(s, old, new, 1) }
	}
	s := workload(t, sliceYAML, nil).(*EndpointSlice)
	require.NoError(t, Validate(s))
	assert.Equal(t, corev1.ProtocolTCP, *s.Ports[0].Protocol, "protocol defaults to TCP")
	assert.Equal(t, corev1.ProtocolUDP, *s.Ports[1].Protocol, "a set protocol is kept")
	assert.Equal(t, "default", s.Namespace)

	pods := workload(t, sliceYAML, rep("[10.0.1.5]", "[127.100.0.2]"))
	assert.NoError(t, Validate(pods), "converge's pod addresses are on loopback")

	bare := workload(t, "apiVersion: discovery.k8s.io/v1\nkind: EndpointSlice\nmetadata: {name: e}\naddressType: FQDN\nports: [{port: 53}]\n", nil).(*EndpointSlice)
	require.NoError(t, Validate(bare), "a slice needs no endpoints")
	assert.Equal(t, "", *bare.Ports[0].Name, "an unnamed port's name defaults to empty")
}

// Each case breaks one thing; the field error is upstream's.
func TestEndpointSliceRejected(t *testing.T) {
	rep := func(old, new string) func(string) string {
		return func(s string) string { return strings.Replace(s, old, new, 1) }
	}
	many := func(n int, item string) string {
		l := make([]string, n)
		for i := range l {
			l[i] = fmt.Sprintf(item, i/250, i%250)
		}
		return "[" + strings.Join(l, ", ") + "]"
	}
	for _, c := range []struct {
		name string
		mut  func(string) string
		want string
	}{
		{"no address type", rep("addressType: IPv4\n", ""), "addressType: Required value"},
		{"unknown address type", rep("addressType: IPv4", "addressType: IP"), `addressType: Unsupported value: "IP": supported values: "FQDN", "IPv4", "IPv6"`},
		{"IPv6 address in an IPv4 slice", rep("[10.0.1.5]", "[\"fd00::5\"]"), `endpoints[0].addresses[0]: Invalid value: "fd00::5": must be a valid IPv4 address`},
		{"IPv4 address in an IPv6 slice", rep("addressType: IPv4", "addressType: IPv6"), `endpoints[0].addresses[0]: Invalid value: "10.0.1.5": must be a valid IPv6 address`},
		{"link-local", rep("[10.0.1.5]", "[169.254.0.9]"), `endpoints[0].addresses[0]: Invalid value: "169.254.0.9": may not be in the link-local range`},
		{"unspecified", rep("[10.0.1.5]", "[0.0.0.0]"), `may not be unspecified (0.0.0.0)`},
		{"not a domain name", func(s string) string {
			return strings.Replace(strings.Replace(s, "addressType: IPv4", "addressType: FQDN", 1), "[10.0.1.5]", "[web_1.example.com]", 1)
		}, `endpoints[0].addresses[0]: Invalid value: "web_1.example.com"`},
		{"endpoint without addresses", rep("[10.0.1.5]", "[]"), "endpoints[0].addresses: Required value: must contain at least 1 address"},
		{"too many addresses", rep("[10.0.1.5]", many(101, "10.0.%d.%d")), "endpoints[0].addresses: Too many: 101: must have at most 100 items"},
		{"too many endpoints", rep("endpoints:\n- addresses: [10.0.1.5]\n  conditions: {ready: true}\n  nodeName: node-1\n  hints: {forZones: [{name: zone-a}]}\n",
			"endpoints: "+many(1001, "{addresses: [10.1.%d.%d]}")+"\n"), "endpoints: Too many: 1001: must have at most 1000 items"},
		{"bad node name", rep("nodeName: node-1", "nodeName: Node_1"), `endpoints[0].nodeName: Invalid value: "Node_1"`},
		{"duplicate zone hint", rep("[{name: zone-a}]", "[{name: zone-a}, {name: zone-a}]"), `endpoints[0].hints.forZones[1].name: Duplicate value: "zone-a"`},
		{"bad port name", rep("name: http,", "name: HTTP_1,"), `ports[0].name: Invalid value: "HTTP_1"`},
		{"duplicate port name", rep("name: metrics,", "name: http,"), `ports[1].name: Duplicate value: "http"`},
		{"two unnamed ports", rep("{name: http, port: 8080}\n- {name: metrics, ", "{port: 8080}\n- {"), `ports[1].name: Duplicate value: ""`},
		{"bad protocol", rep("protocol: UDP", "protocol: ICMP"), `ports[1].protocol: Unsupported value: "ICMP": supported values: "SCTP", "TCP", "UDP"`},
		{"too many ports", rep("ports:\n- {name: http, port: 8080}\n- {name: metrics, port: 9090, protocol: UDP, appProtocol: http}\n",
			"ports: "+strings.ReplaceAll(many(101, "{name: p%d-%d, port: 80}"), "p0-", "p")+"\n"), "ports: Too many: 101: must have at most 100 items"},
		{"bad app protocol", rep("appProtocol: http", "appProtocol: \"-http\""), `ports[1].appProtocol: Invalid value: "-http"`},
		{"bad name", rep("name: web-abc12", "name: Web_abc"), "metadata.name: Invalid value"},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := Validate(workload(t, sliceYAML, c.mut))
			require.Error(t, err)
			assert.Contains(t, err.Error(), c.want)
		})
	}
}

func TestEndpointSliceAddressTypeImmutable(t *testing.T) {
	old := workload(t, sliceYAML, nil).(*EndpointSlice)
	now := workload(t, sliceYAML, nil).(*EndpointSlice)
	now.Endpoints = []discoveryv1.Endpoint{{Addresses: []string{"10.0.1.6"}}}
	assert.NoError(t, ValidateUpdate(old, now), "endpoints change")
	now.AddressType, now.Endpoints = discoveryv1.AddressTypeIPv6, nil
	err := ValidateUpdate(old, now)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `addressType: Invalid value: "IPv6": field is immutable`)
}
