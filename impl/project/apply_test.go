package project

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/model"
)

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// fixture decodes one of impl/api's realistic objects.
func fixture(t *testing.T, name string) api.Object { return fixtureB(t, name) }

func fixtureB(t testing.TB, name string) api.Object {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "api", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	objs, err := api.DecodeManifests(data)
	if err != nil || len(objs) != 1 {
		t.Fatalf("%s: %d objects, %v", name, len(objs), err)
	}
	return objs[0]
}

// Model-visible paths per kind, for masking. A segment "type=X" selects the
// array element whose type is X; a number selects by index.
var metaPaths = []string{"metadata.labels", "metadata.ownerReferences", "metadata.deletionTimestamp", "metadata.deletionGracePeriodSeconds", "metadata.finalizers", "metadata.resourceVersion"}

var visiblePaths = map[string][]string{
	"Deployment": {"metadata.generation", "spec.replicas", "spec.template.metadata.labels", "spec.template.spec.containers.0.image",
		"spec.template.spec.nodeSelector", "spec.strategy", "status.observedGeneration", "status.replicas",
		"status.updatedReplicas", "status.readyReplicas", "status.availableReplicas",
		"status.conditions.type=Available", "status.conditions.type=Progressing"}, // derived from the counts
	"Pod": {"spec.containers.0.image", "spec.containers.0.resources.requests.cpu", "spec.containers.0.resources.requests.memory",
		"spec.nodeSelector", "spec.nodeName", "status.phase", "status.conditions.type=Ready",
		"status.conditions.type=ContainersReady", "status.podIP", "status.podIPs", "status.containerStatuses.0"},
	"Node": {"spec.podCIDR", "spec.podCIDRs", "spec.taints", "status.capacity.cpu", "status.capacity.memory",
		"status.capacity.pods", "status.conditions.type=Ready"},
	"Service":   {"spec.selector", "spec.ports.0.port"},
	"Endpoints": {"subsets"},
}

// masked is obj as JSON with every model-visible field removed: what Apply
// must leave alone.
func masked(t *testing.T, obj api.Object) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(mustJSON(t, obj)), &m); err != nil {
		t.Fatal(err)
	}
	for _, p := range append(metaPaths, visiblePaths[api.TypeOf(obj).Kind]...) {
		remove(m, strings.Split(p, "."))
	}
	return m
}

func remove(v any, path []string) any {
	switch x := v.(type) {
	case map[string]any:
		if len(path) == 1 {
			delete(x, path[0])
		} else if c, ok := x[path[0]]; ok {
			x[path[0]] = remove(c, path[1:])
		}
	case []any:
		if typ, ok := strings.CutPrefix(path[0], "type="); ok {
			var out []any
			for _, e := range x {
				if m, _ := e.(map[string]any); m == nil || m["type"] != typ {
					out = append(out, e)
				}
			}
			return out
		}
		i, err := strconv.Atoi(path[0])
		if err != nil || i >= len(x) {
			return x
		}
		if len(path) == 1 {
			return append(x[:i:i], x[i+1:]...)
		}
		x[i] = remove(x[i], path[1:])
	}
	return v
}

// Realistic objects: an unchanged projection applies as a no-op, a changed
// one lands exactly, and nothing the model does not see moves.
func TestApplyOnRealisticObjects(t *testing.T) {
	for _, c := range []struct {
		file   string
		prep   func(api.Object)       // make the fixture projectable
		change func(model.Obj, *UIDs) // what a controller decides
	}{
		{"deployment.json", nil, func(o model.Obj, _ *UIDs) {
			d := o.(*model.Deployment)
			d.Replicas, d.Image, d.Generation = 5, "nginx:1.28", 2
			d.MaxSurge, d.MaxUnavailable = count(1), count(0)
			d.NodeSelector = map[string]string{"disk": "ssd"}
			d.Status = model.DeploymentStatus{Replicas: 6, UpdatedReplicas: 1, ReadyReplicas: 5, AvailableReplicas: 5}
		}},
		{"pod.json", nil, func(o model.Obj, _ *UIDs) {
			p := o.(*model.Pod)
			p.Ready, p.Restarts, p.PodIP, p.NodeName = false, 2, model.PodIP(3, 9), "node-3"
			p.CPU, p.Memory = 250, 256
		}},
		{"pod.json", nil, func(o model.Obj, uids *UIDs) {
			p := o.(*model.Pod)
			p.Labels = map[string]string{"app": "orphaned"}
			p.Owner = model.Owner{}
			p.Deleting = true
			p.Version = 0
		}},
		{"node.json", setModelCIDR, func(o model.Obj, _ *UIDs) {
			n := o.(*model.Node)
			n.Ready, n.TransitionAt, n.Heartbeat = false, 20, 17
			n.Taints = []string{"dedicated:NoSchedule"}
			n.CPU, n.MaxPods = 3500, 20
		}},
		{"node.json", setModelCIDR, func(o model.Obj, _ *UIDs) { o.(*model.Node).Index = 251 }},
		{"service.json", nil, func(o model.Obj, _ *UIDs) {
			s := o.(*model.Service)
			s.Ports[0].Port, s.Selector = 8080, map[string]string{"app": "other"}
		}},
		{"endpoints.json", nil, func(o model.Obj, _ *UIDs) {
			e := o.(*model.Endpoints)
			// The not-ready pod became ready; addresses stay sorted by pod.
			e.Addresses = append([]model.Address{{Pod: "myapp-7d9fbc5d8c-p4k7z", IP: "10.244.2.3", Node: "node-2"}}, e.Addresses...)
			e.Ports[0].Port = 81
		}},
	} {
		t.Run(c.file, func(t *testing.T) {
			uids := NewUIDs()
			base := fixture(t, c.file)
			if c.prep != nil {
				c.prep(base)
			}
			before := mustJSON(t, base)
			o, err := ToModel(base, uids)
			if err != nil {
				t.Fatal(err)
			}
			same, err := Apply(base, o, uids)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(same, base) {
				t.Errorf("no-op Apply changed the object:\n got %s\nwant %s", mustJSON(t, same), before)
			}
			c.change(o, uids)
			out, err := Apply(base, o, uids)
			if err != nil {
				t.Fatal(err)
			}
			if mustJSON(t, base) != before {
				t.Errorf("Apply mutated its base")
			}
			got, err := ToModel(out, uids)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, o) {
				t.Errorf("Apply did not land the decision:\n got %#v\nwant %#v", got, o)
			}
			if a, b := masked(t, out), masked(t, base); !reflect.DeepEqual(a, b) {
				t.Errorf("Apply changed fields the model does not see:\n got %s\nwant %s", mustJSON(t, a), mustJSON(t, b))
			}
		})
	}
}

// A node outside the model's pod ranges does not project, but Apply moves
// it into one and leaves the rest.
func TestApplyMovesAForeignNodeIntoAModelRange(t *testing.T) {
	uids := NewUIDs()
	raw := fixture(t, "node.json")
	if _, err := ToModel(raw, uids); !errors.Is(err, ErrUnsupported) {
		t.Fatalf("ToModel of a 10.244 node: %v, want ErrUnsupported", err)
	}
	prepped := fixture(t, "node.json")
	setModelCIDR(prepped)
	o, err := ToModel(prepped, uids)
	if err != nil {
		t.Fatal(err)
	}
	out, err := Apply(raw, o, uids)
	if err != nil {
		t.Fatal(err)
	}
	if n := out.(*api.Node); n.Spec.PodCIDR != "127.100.1.0/24" || !reflect.DeepEqual(n.Spec.PodCIDRs, []string{"127.100.1.0/24"}) {
		t.Errorf("podCIDR %q podCIDRs %q", n.Spec.PodCIDR, n.Spec.PodCIDRs)
	}
	if a, b := masked(t, out), masked(t, raw); !reflect.DeepEqual(a, b) {
		t.Errorf("Apply changed fields the model does not see:\n got %s\nwant %s", mustJSON(t, a), mustJSON(t, b))
	}
}

func setModelCIDR(o api.Object) {
	n := o.(*api.Node)
	n.Spec.PodCIDR, n.Spec.PodCIDRs = "127.100.1.0/24", []string{"127.100.1.0/24"}
}

// A pod that gets an address gets its node's address as hostIP, unless
// it already has one; a node made from the model registers its address.
func TestHostIPFollowsThePodRange(t *testing.T) {
	uids := NewUIDs()
	node, err := New(&model.Node{Meta: model.Meta{Name: "node-3"}, Index: 2}, nil, uids)
	if err != nil {
		t.Fatal(err)
	}
	if a := node.(*api.Node).Status.Addresses; len(a) == 0 || a[0] != (api.NodeAddress{Type: "InternalIP", Address: "127.100.2.1"}) {
		t.Fatalf("node addresses %+v", a)
	}
	pod := &api.Pod{TypeMeta: api.TypeMeta{Kind: "Pod", APIVersion: "v1"}, ObjectMeta: api.ObjectMeta{Name: "p", Namespace: "default"},
		Spec: api.PodSpec{Containers: []api.Container{{Name: "c", Image: "nginx"}}}}
	o, err := ToModel(pod, uids)
	if err != nil {
		t.Fatal(err)
	}
	mp := o.(*model.Pod)
	mp.NodeName, mp.PodIP = "node-3", model.PodIP(2, 7)
	out, err := Apply(pod, mp, uids)
	if err != nil {
		t.Fatal(err)
	}
	if s := out.(*api.Pod).Status; s.HostIP != "127.100.2.1" || len(s.HostIPs) != 1 || s.HostIPs[0].IP != "127.100.2.1" {
		t.Fatalf("hostIP %q %v", s.HostIP, s.HostIPs)
	}
	pod.Status.HostIP = "10.0.0.9"
	if out, err = Apply(pod, mp, uids); err != nil || out.(*api.Pod).Status.HostIP != "10.0.0.9" {
		t.Fatalf("a set hostIP is kept: %v %v", out, err)
	}
	if hostIPOf("10.1.2.3") != "" || hostIPOf("nonsense") != "" {
		t.Fatal("addresses outside the model's layout have no host")
	}
}

// A cordoned node is tainted NoSchedule for the model, and the taint is
// never written back: uncordoning lifts it, and a controller's own taints
// keep their place around it.
func TestCordonIsANoScheduleTaint(t *testing.T) {
	uids := NewUIDs()
	obj, err := New(&model.Node{Meta: model.Meta{Name: "node-1"}, Index: 0, CPU: 4000, Memory: 8192, MaxPods: 110, Ready: true}, nil, uids)
	if err != nil {
		t.Fatal(err)
	}
	n := obj.(*api.Node)
	n.Spec.Unschedulable = true
	o, err := ToModel(n, uids)
	if err != nil {
		t.Fatal(err)
	}
	mn := o.(*model.Node)
	if !reflect.DeepEqual(mn.Taints, []string{unschedulableTaint}) {
		t.Fatalf("cordoned node taints %v", mn.Taints)
	}
	if same, err := Apply(n, mn, uids); err != nil || !reflect.DeepEqual(same, obj) {
		t.Fatalf("Apply of its own projection changed the node: %v", err)
	}
	mn.Taints = append(mn.Taints, "node.kubernetes.io/not-ready:NoExecute")
	out, err := Apply(n, mn, uids)
	if err != nil {
		t.Fatal(err)
	}
	if got := taintsOf(out.(*api.Node).Spec.Taints); !reflect.DeepEqual(got, []string{"node.kubernetes.io/not-ready:NoExecute"}) {
		t.Fatalf("written taints %v: the cordon's taint is derived, not stored", got)
	}
	back, err := ToModel(out, uids)
	if err != nil || !reflect.DeepEqual(back.(*model.Node).Taints, mn.Taints) {
		t.Fatalf("ToModel(Apply) taints %v, want %v (%v)", back.(*model.Node).Taints, mn.Taints, err)
	}
	out.(*api.Node).Spec.Unschedulable = false
	if back, _ = ToModel(out, uids); slices.Contains(back.(*model.Node).Taints, unschedulableTaint) {
		t.Fatal("an uncordoned node is still tainted")
	}
}
