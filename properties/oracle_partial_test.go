package properties

import (
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// partialHistory is Broker b's inputs from the correct reconciler's false
// alarm (seed 2 of the broker catalogue): a write (image, port) that a
// reconcile met, made b-config, and crashed before the Deployment; a
// retry that failed; then the user paused b. The reference replays the
// first write without settling it, so it never made b-config.
func partialHistory() (h history, first, paused *historyInput) {
	owner := ownerKey{schema.GroupVersionKind{Group: "mq.example.com", Version: "v1", Kind: "Broker"}, "default", "b"}
	first = &historyInput{Owner: owner, Verb: "set", uid: "u1", rev: 10}
	paused = &historyInput{Owner: owner, Verb: "set", uid: "u1", rev: 14, last: true}
	h.inputs = []*historyInput{first, paused}
	return h, first, paused
}

func differentialKeys(r *operatorRun, got, want map[string]map[string]any, written map[string]string) []string {
	var keys []string
	for k := range r.withoutPartial(got, want, written) {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// TestPartialReconcileBeforeAPauseIsNoDifference: b-config, made only by
// the crashed reconcile of a write no reconcile settled, is left out; the
// Deployment, which a settled reconcile wrote, is not.
func TestPartialReconcileBeforeAPauseIsNoDifference(t *testing.T) {
	h, first, paused := partialHistory()
	paused.Settle = true
	h.writes = map[string][]partialWrite{
		"configmaps/b-config": {{held: first}},
		"deployments/b":       {{held: paused, settled: true}},
	}
	r := &operatorRun{hist: h}
	got := map[string]map[string]any{"ConfigMap default/b-config": {}, "Deployment default/b": {}}
	written := map[string]string{"ConfigMap default/b-config": "configmaps/b-config", "Deployment default/b": "deployments/b"}
	if keys := differentialKeys(r, got, nil, written); !slices.Equal(keys, []string{"Deployment default/b"}) {
		t.Fatalf("compared: %v, want only the Deployment", keys)
	}
}

// TestPartialReconcileExemptionKeepsItsTeeth: a bug of the class the
// exemption could hide is still reported. End to end, the broker's
// TestBrokerGeneratedNameLeakAfterACrashIsCaught is the same teeth.
func TestPartialReconcileExemptionKeepsItsTeeth(t *testing.T) {
	for _, c := range []struct {
		name   string
		writes func(first, paused *historyInput) []partialWrite
	}{
		{"a generated-name child made again by a retry that settled the write (the first copy)", func(first, _ *historyInput) []partialWrite {
			first.Settle = true
			return []partialWrite{{held: first}}
		}},
		{"the retry's copy", func(first, _ *historyInput) []partialWrite {
			first.Settle = true
			return []partialWrite{{held: first, settled: true}}
		}},
		{"a child also written while paused", func(first, paused *historyInput) []partialWrite {
			return []partialWrite{{held: first}, {held: paused, settled: true}}
		}},
		{"a child a failing reconcile of the last write made", func(_, paused *historyInput) []partialWrite {
			return []partialWrite{{held: paused}}
		}},
		{"a child made by a reconcile whose view held no write of the owner", func(_, _ *historyInput) []partialWrite {
			return []partialWrite{{}}
		}},
		{"an object the operator never wrote", func(_, _ *historyInput) []partialWrite { return nil }},
		{"a child without an owner, left when the owner was deleted", func(first, paused *historyInput) []partialWrite {
			paused.Verb, paused.uid = "delete", ""
			return []partialWrite{{held: first}}
		}},
		{"a child of the owner's earlier incarnation", func(first, paused *historyInput) []partialWrite {
			paused.uid = "u2"
			return []partialWrite{{held: first}}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			h, first, paused := partialHistory()
			h.writes = map[string][]partialWrite{"configmaps/b-config-x1": c.writes(first, paused)}
			r := &operatorRun{hist: h}
			got := map[string]map[string]any{"ConfigMap default/b-config-*": {}}
			written := map[string]string{"ConfigMap default/b-config-*": "configmaps/b-config-x1"}
			if keys := differentialKeys(r, got, nil, written); len(keys) != 1 {
				t.Fatalf("the child is left out of the differential")
			}
		})
	}
	h, first, _ := partialHistory()
	h.writes = map[string][]partialWrite{"configmaps/b-config": {{held: first}}}
	r := &operatorRun{hist: h}
	both := map[string]map[string]any{"ConfigMap default/b-config": {"data": "run"}}
	want := map[string]map[string]any{"ConfigMap default/b-config": {"data": "reference"}}
	if keys := differentialKeys(r, both, want, map[string]string{"ConfigMap default/b-config": "configmaps/b-config"}); len(keys) != 1 {
		t.Fatalf("an object both runs have is compared whoever wrote it")
	}
}
