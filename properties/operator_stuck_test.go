package properties

import "testing"

// TestWithoutStuckStatusKeepsTheSpec: a Deployment stuck on an image the
// kubelet cannot parse, and the Broker that controls it, are compared
// without their status, never without their spec; a Deployment of a
// valid image keeps its status.
func TestWithoutStuckStatusKeepsTheSpec(t *testing.T) {
	dep := func(image string, replicas, ready int) map[string]any {
		return map[string]any{
			"metadata": map[string]any{"ownerReferences": []any{map[string]any{"kind": "Broker", "name": "a", "controller": true}}},
			"spec":     map[string]any{"replicas": replicas, "template": map[string]any{"spec": map[string]any{"containers": []any{map[string]any{"image": image}}}}},
			"status":   map[string]any{"readyReplicas": ready},
		}
	}
	broker := func(ready int) map[string]any {
		return map[string]any{"status": map[string]any{"readyReplicas": ready}}
	}
	state := func(image string, replicas, ready int) map[string]map[string]any {
		return map[string]map[string]any{"Deployment default/a": dep(image, replicas, ready), "Broker default/a": broker(ready)}
	}
	got, want := withoutStuckStatus(state("A", 1, 0), state("A", 1, 1), nil)
	if d := stateDiff(got, want); d != "" {
		t.Fatalf("a stuck rollout's status is compared:\n%s", d)
	}
	if got, want = withoutStuckStatus(state("A", 2, 0), state("A", 1, 1), nil); stateDiff(got, want) == "" {
		t.Fatal("a stuck rollout's spec is not compared")
	}
	if got, want = withoutStuckStatus(state("nginx:1", 1, 0), state("nginx:1", 1, 1), nil); stateDiff(got, want) == "" {
		t.Fatal("a running rollout's status is not compared")
	}
	if got, want = withoutStuckStatus(state("nginx:1", 1, 0), state("nginx:1", 1, 1), []string{"nginx:1"}); stateDiff(got, want) != "" {
		t.Fatal("a rollout stuck on a failing image has its status compared")
	}
}

// TestStuckStatefulSetKeepsItsSpecCompared: a StatefulSet that once named
// a failing image (stuckStatefulSets), and the Memcache that controls it,
// are compared without their status, never without their spec; another
// StatefulSet of the same state keeps its status compared.
func TestStuckStatefulSetKeepsItsSpecCompared(t *testing.T) {
	set := func(owner, image string, ready int) map[string]any {
		return map[string]any{
			"metadata": map[string]any{"ownerReferences": []any{map[string]any{"kind": "Memcache", "name": owner, "controller": true}}},
			"spec":     map[string]any{"template": map[string]any{"spec": map[string]any{"containers": []any{map[string]any{"image": image}}}}},
			"status":   map[string]any{"readyReplicas": ready},
		}
	}
	state := func(image string, ready, otherReady int) map[string]map[string]any {
		return map[string]map[string]any{
			"StatefulSet default/b": set("b", image, ready), "Memcache default/b": {"status": map[string]any{"readyReplicas": ready}},
			"StatefulSet default/c": set("c", "memcached:1.5", otherReady),
		}
	}
	stuck := "StatefulSet default/b"
	if got, want := withoutStuckStatus(state("memcached:1.5", 1, 1), state("memcached:1.5", 0, 1), nil, stuck); stateDiff(got, want) != "" {
		t.Fatalf("a StatefulSet stuck on a pod of a failing image has its status compared:\n%s", stateDiff(got, want))
	}
	if got, want := withoutStuckStatus(state("memcached:1.5", 1, 1), state("memcached:1.6", 1, 1), nil, stuck); stateDiff(got, want) == "" {
		t.Fatal("a stuck StatefulSet's spec is not compared")
	}
	if got, want := withoutStuckStatus(state("memcached:1.5", 1, 1), state("memcached:1.5", 1, 0), nil, stuck); stateDiff(got, want) == "" {
		t.Fatal("another StatefulSet's status is not compared")
	}
}
