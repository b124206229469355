package apiserver

import (
	"fmt"
	"net"
	"strconv"
	"strings"

	"github.com/converge-dev/converge/impl/api"
)

// kubectl's table for Endpoints, as Kubernetes' printers print it: NAME,
// ENDPOINTS, AGE, where ENDPOINTS is ip:port for each port of each subset
// (the bare ip for a subset without ports, a headless Service's), the
// first three of them, then "+ N more..."; "<none>" without subsets.

func endpointsPrinter() ([]tableColumn, func(api.Object) []any) {
	return []tableColumn{col("Name", "string", 0), col("Endpoints", "string", 0), col("Age", "string", 0)},
		func(o api.Object) []any { return []any{api.Meta(o).Name, endpointsCell(o.(*api.Endpoints)), age(o)} }
}

func endpointsCell(e *api.Endpoints) string {
	if len(e.Subsets) == 0 {
		return "<none>"
	}
	var list []string
	count := 0
	add := func(s string) {
		count++
		if len(list) < sliceListMax {
			list = append(list, s)
		}
	}
	for _, ss := range e.Subsets {
		if len(ss.Ports) == 0 {
			for _, a := range ss.Addresses {
				add(a.IP)
			}
			continue
		}
		for _, p := range ss.Ports {
			for _, a := range ss.Addresses {
				add(net.JoinHostPort(a.IP, strconv.Itoa(int(p.Port))))
			}
		}
	}
	out := strings.Join(list, ",")
	if count > len(list) {
		return fmt.Sprintf("%s + %d more...", out, count-len(list))
	}
	return out
}
