package apiserver

import (
	"testing"

	"github.com/converge-dev/converge/impl/api"
)

// TestEndpointsTable: kubectl get endpoints shows NAME, ENDPOINTS, AGE,
// the endpoints as upstream's printer spells them.
func TestEndpointsTable(t *testing.T) {
	e := newEnv(t)
	path := "/api/v1/namespaces/default/endpoints"
	e.must(201, "POST", path, `{"apiVersion":"v1","kind":"Endpoints","metadata":{"name":"web"},"subsets":[`+
		`{"addresses":[{"ip":"10.0.0.1"},{"ip":"10.0.0.2"}],"ports":[{"name":"http","port":80},{"name":"alt","port":81}]}]}`)
	var tb wireTable
	e.must(200, "GET", path+"/web", "", tableAccept).into(t, &tb)
	var names []string
	for _, c := range tb.Columns {
		names = append(names, c.Name)
	}
	if len(names) != 3 || names[0] != "Name" || names[1] != "Endpoints" || names[2] != "Age" {
		t.Fatalf("columns %v, want Name, Endpoints, Age", names)
	}
	if len(tb.Rows) != 1 || tb.Rows[0].Cells[1] != "10.0.0.1:80,10.0.0.2:80,10.0.0.1:81 + 1 more..." {
		t.Fatalf("row: %+v", tb.Rows)
	}
}

func TestEndpointsCell(t *testing.T) {
	for _, c := range []struct {
		subsets []api.EndpointSubset
		want    string
	}{
		{nil, "<none>"},
		{[]api.EndpointSubset{{Addresses: []api.EndpointAddress{{IP: "10.0.0.1"}}}}, "10.0.0.1"},
		{[]api.EndpointSubset{{Addresses: []api.EndpointAddress{{IP: "10.0.0.1"}}, Ports: []api.EndpointPort{{Port: 80}}},
			{Addresses: []api.EndpointAddress{{IP: "10.0.0.2"}}, Ports: []api.EndpointPort{{Port: 8080}}}}, "10.0.0.1:80,10.0.0.2:8080"},
		{[]api.EndpointSubset{{NotReadyAddresses: []api.EndpointAddress{{IP: "10.0.0.1"}}, Ports: []api.EndpointPort{{Port: 80}}}}, ""},
	} {
		if got := endpointsCell(&api.Endpoints{Subsets: c.subsets}); got != c.want {
			t.Errorf("%+v: %q, want %q", c.subsets, got, c.want)
		}
	}
}
