package model

import (
	"reflect"
	"testing"

	"pgregory.net/rapid"
)

func node(name string, ready bool, taints ...string) *Node {
	return &Node{Meta: Meta{Name: name, Labels: map[string]string{"disk": "ssd-" + name}}, CPU: 1000, Memory: 1024, MaxPods: 2, Ready: ready, Taints: taints}
}

func pod(name, nodeName string, cpu int) *Pod {
	return &Pod{Meta: Meta{Name: name}, NodeName: nodeName, CPU: cpu, Memory: 100}
}

func TestPickNodeFiltersAndScores(t *testing.T) {
	n1, n2, n3 := node("n1", true), node("n2", true), node("n3", true)
	cases := []struct {
		name  string
		p     *Pod
		nodes []Obj
		pods  []Obj
		want  string
	}{
		{"tie goes to the lowest name", pod("p", "", 100), []Obj{n1, n2}, nil, "n1"},
		{"least allocated wins", pod("p", "", 100), []Obj{n1, n2}, []Obj{pod("a", "n1", 500)}, "n2"},
		{"not ready is filtered", pod("p", "", 100), []Obj{node("n1", false), n2}, nil, "n2"},
		{"NoSchedule taint is filtered", pod("p", "", 100), []Obj{node("n1", true, "dedicated:NoSchedule"), n2}, nil, "n2"},
		{"cpu must fit", pod("p", "", 600), []Obj{n1, n2}, []Obj{pod("a", "n1", 500), pod("b", "n2", 500)}, ""},
		{"pod count must fit", pod("p", "", 1), []Obj{n1}, []Obj{pod("a", "n1", 1), pod("b", "n1", 1)}, ""},
		{"nodeSelector", &Pod{Meta: Meta{Name: "p"}, NodeSelector: map[string]string{"disk": "ssd-n3"}, CPU: 1}, []Obj{n1, n2, n3}, nil, "n3"},
		{"the pod itself is not counted", pod("p", "", 100), []Obj{n1, n2}, []Obj{pod("p", "n1", 900)}, "n1"},
	}
	for _, c := range cases {
		if got := PickNode(c.p, c.nodes, c.pods); got != c.want {
			t.Errorf("%s: PickNode = %q, want %q", c.name, got, c.want)
		}
	}
}

func TestResolveSurgeRoundsLikeKubernetes(t *testing.T) {
	pct := func(v int) IntOrPercent { return IntOrPercent{v, true} }
	cases := []struct {
		replicas       int
		surge, unavail IntOrPercent
		s, u           int
	}{
		{3, pct(25), pct(25), 1, 0},
		{10, pct(25), pct(25), 3, 2},
		{4, pct(0), pct(0), 0, 1},
		{5, IntOrPercent{2, false}, IntOrPercent{0, false}, 2, 0},
		{0, pct(25), pct(25), 0, 1},
	}
	for _, c := range cases {
		if s, u := ResolveSurge(c.replicas, c.surge, c.unavail); s != c.s || u != c.u {
			t.Errorf("ResolveSurge(%d, %v, %v) = %d, %d; want %d, %d", c.replicas, c.surge, c.unavail, s, u, c.s, c.u)
		}
	}
}

func TestDeletionOrderPrefersUnscheduledThenUnreadyThenNewest(t *testing.T) {
	ready := func(p *Pod) *Pod { p.Ready = true; return p }
	got := deletionOrder([]*Pod{ready(pod("r-9", "n", 1)), ready(pod("r-10", "n", 1)), pod("r-2", "n", 1), pod("r-3", "", 1)})
	want := []string{"r-3", "r-2", "r-10", "r-9"}
	for i, p := range got {
		if p.Name != want[i] {
			t.Fatalf("order %d = %s, want %v", i, p.Name, want)
		}
	}
}

func TestActionScriptRoundTripsAndRejectsGarbage(t *testing.T) {
	for _, l := range []string{
		"apply default/web replicas=3 image=nginx:1 surge=1 unavailable=25%", "scale default/web 0", "set-image team-b/web nginx:2",
		"delete pods/default/web-x-0", "add-node node-1", "tick", "deliver scheduler pods", "relist scheduler",
		"reconcile replicaset-controller team-b/web-x crash-after=2", "crash-container node-1 default/web-x-0", "compact", "api-error scheduler 503", "time-travel scheduler",
		"create-namespace team-b", "delete namespaces/team-b", "reconcile namespace-controller team-b", "reconcile garbage-collector pods/team-b/web-x-0",
		"reconcile node-lifecycle-controller node-1",
	} {
		a, err := ParseAction(l)
		if err != nil || a.String() != l {
			t.Errorf("%q: got %q, %v", l, a.String(), err)
		}
	}
	// A namespaced object named without a namespace is in the default one,
	// as kubectl has it.
	for l, want := range map[string]string{
		"scale web 0": "scale default/web 0", "delete pods/web-x-0": "delete pods/default/web-x-0",
		"reconcile replicaset-controller web-x":    "reconcile replicaset-controller default/web-x",
		"reconcile garbage-collector pods/web-x-0": "reconcile garbage-collector pods/default/web-x-0",
		"crash-container node-1 web-x-0":           "crash-container node-1 default/web-x-0",
	} {
		if a, err := ParseAction(l); err != nil || a.String() != want {
			t.Errorf("%q: got %q, %v; want %q", l, a.String(), err, want)
		}
	}
	for _, l := range []string{"", "fly web", "scale web -1", "apply web replicas=3", "delete nodes/n1", "deliver scheduler gizmos", "tick now", "api-error scheduler 500", "api-error scheduler",
		"apply a/b/c replicas=1 image=x", "scale /web 1", "create-namespace a/b", "delete namespaces/team-b cascade=orphan"} {
		if _, err := ParseAction(l); err == nil {
			t.Errorf("%q: parsed, want an error", l)
		}
	}
}

func TestWhyUnschedulableCountsReasons(t *testing.T) {
	full := pod("a", "n2", 950)
	nodes := []Obj{node("n1", false), node("n2", true), node("n3", true, "node.kubernetes.io/unschedulable:NoSchedule")}
	got := WhyUnschedulable(pod("p", "", 100), nodes, []Obj{full})
	want := "0/3 nodes are available: 1 Insufficient cpu, 1 node(s) had untolerated taint {node.kubernetes.io/unschedulable: }, 1 node(s) were not ready."
	if got != want {
		t.Fatalf("WhyUnschedulable = %q, want %q", got, want)
	}
	if got := WhyUnschedulable(pod("p", "", 10), nodes, []Obj{full}); got != "" {
		t.Fatalf("a pod that fits n2: %q", got)
	}
	if got := WhyUnschedulable(pod("p", "", 1), nil, nil); got != "no nodes available to schedule pods" {
		t.Fatalf("no nodes: %q", got)
	}
}

// The memory's per-node sums, once the scheduler has asked for them, are
// kept up by Put, Remove and Clear, and always equal what usage sums from
// the viewed pods, clones included; a memory never asked keeps none.
func TestMemoryUsageFollowsPutsAndRemoves(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		m := NewMemory("scheduler")
		for i := range rapid.IntRange(0, 60).Draw(t, "ops") {
			name := rapid.SampledFrom([]string{"a", "b", "c", "d"}).Draw(t, "pod")
			switch rapid.IntRange(0, 9).Draw(t, "op") {
			case 0:
				m.Remove(Ref{Kind: KindPod, Name: name})
			case 1:
				m = m.clone()
			case 2:
				if i%7 == 0 {
					m.Clear()
				}
			case 3:
				m.sortedUse()
			default:
				node := rapid.SampledFrom([]string{"", "n1", "n2"}).Draw(t, "node")
				m.Put(pod(name, node, rapid.IntRange(0, 500).Draw(t, "cpu")))
			}
			if !m.usedBuilt {
				if m.used != nil {
					t.Fatalf("sums %v kept for a memory that never asked", m.used)
				}
				continue
			}
			want := usage(&Pod{}, m.List(KindPod))
			if len(want) == 0 {
				want = nil
			}
			got := m.used
			if len(got) == 0 {
				got = nil
			}
			if !reflect.DeepEqual(want, got) {
				t.Fatalf("sums %v, usage of the view %v", got, want)
			}
		}
	})
}

// Queue keys become the namespace and name of a controller-runtime
// Request: split at "/", the default namespace for a built-in's
// namespaced key that names none, none for a cluster-scoped one or a
// user's bare key, and the garbage collector's
// "<resource>/<namespace>/<name>" whole, in its object's namespace.
func TestRequestOfSplitsQueueKeys(t *testing.T) {
	for _, c := range []struct{ component, key, ns, name string }{
		{ReplicaSetController, "team-b/web-x", "team-b", "web-x"},
		{ReplicaSetController, "web-x", DefaultNamespace, "web-x"},
		{NodeLifecycle, "node-1", "", "node-1"},
		{NamespaceController, "team-b", "", "team-b"},
		{GarbageCollector, "pods/team-b/web-x-0", "team-b", "pods/team-b/web-x-0"},
		{"my-operator", "team-b/web", "team-b", "web"},
		{"my-operator", "node-1", "", "node-1"},
	} {
		if ns, name := RequestOf(c.component, c.key); ns != c.ns || name != c.name {
			t.Errorf("RequestOf(%s, %s) = %q, %q; want %q, %q", c.component, c.key, ns, name, c.ns, c.name)
		}
	}
}
