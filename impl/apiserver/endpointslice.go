package apiserver

import (
	"fmt"
	"strconv"
	"strings"

	discoveryv1 "k8s.io/api/discovery/v1"

	"github.com/converge-dev/converge/impl/api"
)

// kubectl's table for EndpointSlices, as Kubernetes' printers print it:
// the address type, then the first three ports and the first three
// addresses, each list ending "+ N more..." when cut and "<unset>" when
// empty.

// sliceListMax is how many ports or addresses a cell shows.
const sliceListMax = 3

func endpointSlicePrinter() ([]tableColumn, func(api.Object) []any) {
	return []tableColumn{col("Name", "string", 0), col("AddressType", "string", 0), col("Ports", "string", 0),
			col("Endpoints", "string", 0), col("Age", "string", 0)},
		func(o api.Object) []any {
			s := o.(*api.EndpointSlice)
			return []any{s.Name, string(s.AddressType), slicePorts(s.Ports), sliceAddresses(s.Endpoints), age(o)}
		}
}

// slicePorts: each port's number, else its name, else "*" (all ports).
func slicePorts(ports []discoveryv1.EndpointPort) string {
	var list []string
	for _, p := range ports {
		switch {
		case p.Port != nil:
			list = append(list, strconv.Itoa(int(*p.Port)))
		case p.Name != nil:
			list = append(list, *p.Name)
		default:
			list = append(list, "*")
		}
	}
	return cutList(list)
}

func sliceAddresses(eps []discoveryv1.Endpoint) string {
	var list []string
	for _, ep := range eps {
		list = append(list, ep.Addresses...)
	}
	return cutList(list)
}

func cutList(list []string) string {
	switch {
	case len(list) == 0:
		return "<unset>"
	case len(list) > sliceListMax:
		return fmt.Sprintf("%s + %d more...", strings.Join(list[:sliceListMax], ","), len(list)-sliceListMax)
	}
	return strings.Join(list, ",")
}
