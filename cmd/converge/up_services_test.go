package main

import (
	"encoding/json"
	"sort"
	"strings"
	"testing"
	"time"
)

// TestKubectlServicesAgainstConvergeUp: with the real kubectl against
// `converge up`, a Deployment selecting kubernetes.io/os: linux schedules;
// a Service's Endpoints and EndpointSlice carry every port, named, with
// its target resolved in the pods; a Service without a selector and an
// ExternalName one get neither.
func TestKubectlServicesAgainstConvergeUp(t *testing.T) {
	needKubectl(t)
	kc, stop := startUp(t, t.TempDir())
	defer stop()
	kubectl(t, kc, "apply", "-f", "cmd/converge/testdata/services.yaml")
	kubectl(t, kc, "rollout", "status", "deployment/web", "--timeout=60s")

	type port struct {
		Name string
		Port int
	}
	var ep struct {
		Subsets []struct {
			Addresses []struct{ IP string }
			Ports     []port
		}
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		if err := json.Unmarshal([]byte(kubectl(t, kc, "get", "endpoints", "web", "-o", "json")), &ep); err != nil {
			t.Fatal(err)
		}
		if len(ep.Subsets) == 1 && len(ep.Subsets[0].Addresses) == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("endpoints/web: %+v", ep)
		}
		time.Sleep(200 * time.Millisecond)
	}
	got := ep.Subsets[0].Ports
	sort.Slice(got, func(i, j int) bool { return got[i].Name < got[j].Name })
	want := []port{{"alt", 80}, {"http", 80}, {"metrics", 9100}}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Fatalf("endpoints/web ports %+v, want %+v", got, want)
	}
	var slices struct {
		Items []struct{ Ports []port }
	}
	if err := json.Unmarshal([]byte(kubectl(t, kc, "get", "endpointslices", "-l", "kubernetes.io/service-name=web", "-o", "json")), &slices); err != nil ||
		len(slices.Items) != 1 || len(slices.Items[0].Ports) != 3 {
		t.Fatalf("endpointslices of web: %+v, %v", slices, err)
	}
	if out := kubectl(t, kc, "get", "endpoints", "web"); !strings.Contains(out, "ENDPOINTS") || !strings.Contains(out, ":80,") {
		t.Fatalf("get endpoints web:\n%s", out)
	}
	// The other two Services were applied before the rollout finished,
	// long enough for the controller to have seen them; it wrote nothing.
	for _, svc := range []string{"manual", "ext"} {
		if out := kubectlFails(t, kc, "get", "endpoints", svc); !strings.Contains(out, "NotFound") {
			t.Errorf("endpoints/%s: %s", svc, out)
		}
		if out := kubectl(t, kc, "get", "endpointslices", "-l", "kubernetes.io/service-name="+svc, "-o", "name"); strings.TrimSpace(out) != "" {
			t.Errorf("endpointslices of %s: %s", svc, out)
		}
	}
	if out := kubectl(t, kc, "get", "node", "node-1", "-o", "jsonpath={.metadata.labels}"); !strings.Contains(out, `"kubernetes.io/os":"linux"`) ||
		!strings.Contains(out, `"kubernetes.io/arch":"amd64"`) {
		t.Fatalf("node labels: %s", out)
	}
}
