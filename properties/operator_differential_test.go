package properties

import (
	"strings"
	"testing"
)

// TestMaskingKeepsWhatAnOperatorDecides: what differs between any two runs
// is masked (uids, revisions, times, generated names), and what the
// operator decides is not.
func TestMaskingKeepsWhatAnOperatorDecides(t *testing.T) {
	obj := func(uid, rv, at string, replicas int) map[string]any {
		return map[string]any{
			"metadata": map[string]any{"name": "a", "uid": uid, "resourceVersion": rv, "creationTimestamp": at,
				"ownerReferences": []any{map[string]any{"kind": "WebApp", "name": "a", "uid": uid}}},
			"spec":   map[string]any{"replicas": replicas},
			"status": map[string]any{"lastSynced": at, "observedGeneration": 3},
		}
	}
	a := maskObject(obj("u1", "10", "2026-11-27T07:00:00Z", 2))
	b := maskObject(obj("u2", "99", "2031-01-01T00:00:00+01:00", 2))
	if d := stateDiff(map[string]map[string]any{"Deployment a": a}, map[string]map[string]any{"Deployment a": b}); d != "" {
		t.Fatalf("two runs of the same decisions differ:\n%s", d)
	}
	c := maskObject(obj("u3", "5", "2026-11-27T07:00:00Z", 3))
	d := stateDiff(map[string]map[string]any{"Deployment a": a, "Service a": a}, map[string]map[string]any{"Deployment a": c})
	for _, want := range []string{"Deployment a: spec.replicas: - 2 + 3", "- Service a (only in this run)"} {
		if !strings.Contains(d, want) {
			t.Errorf("the diff lacks %q:\n%s", want, d)
		}
	}
}
