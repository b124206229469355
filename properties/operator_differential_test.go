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

// TestWhatVariesBetweenReferenceRunsIsNotCompared: a field two fault-free
// runs of the same inputs disagree on (a random token), or that only one
// of them has, is left out of the comparison; every other difference
// stays, an object only this run has included.
func TestWhatVariesBetweenReferenceRunsIsNotCompared(t *testing.T) {
	secret := func(token, user string) map[string]any {
		return map[string]any{"data": map[string]any{"token": token, "user": user}}
	}
	want := map[string]map[string]any{"Secret default/a": secret("r1", "admin")}
	again := map[string]map[string]any{"Secret default/a": secret("r2", "admin")}
	again["Secret default/a"]["data"].(map[string]any)["salt"] = "s"

	got := map[string]map[string]any{"Secret default/a": secret("r3", "admin")}
	g, w := withoutVarying(got, want, again)
	if d := stateDiff(g, w); d != "" {
		t.Fatalf("a token that varies between reference runs was compared:\n%s", d)
	}
	if got["Secret default/a"]["data"].(map[string]any)["token"] != "r3" {
		t.Fatal("withoutVarying changed its input")
	}

	got = map[string]map[string]any{"Secret default/a": secret("r3", "root"), "Secret default/b": secret("x", "y")}
	g, w = withoutVarying(got, want, again)
	d := stateDiff(g, w)
	if !strings.Contains(d, "data.user: - \"root\" + \"admin\"") || !strings.Contains(d, "Secret default/b (only in this run)") || strings.Contains(d, "token") {
		t.Fatalf("a difference that does not vary between reference runs was lost, or the token was compared:\n%s", d)
	}
}
