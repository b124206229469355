package mutants_test

import (
	"strings"
	"testing"
	"time"

	"github.com/converge-dev/converge/properties/mutants"
)

// The fixed budget every mutant must be found within, the cap on shrinking
// in the test, and the most drawn actions a shrunk counterexample may have.
// Recovery and quiesce come on top of the drawn actions: a convergence
// failure needs them in full.
const (
	budget     = 300
	steps      = 15
	shrinkTime = 8 * time.Second
	longest    = 12
)

// pinned is, per mutant, the rapid seed of its campaign. Seeds make the
// test deterministic; after a change to the generator or the cluster pick
// new ones with -mutants.measure (endpoints-lists-unready and
// deployment-ignores-maxsurge were re-picked when the api-error fault joined
// the fault list: their old seeds shrank to 17 and 18 drawn actions;
// deployment-ignores-maxsurge, replicaset-trusts-restart and
// annotator-writes-stale-copy again when rapid began drawing namespaces:
// 32, 39 and 24 drawn actions). Shrinking is capped by time and each
// attempt is a fresh cluster over etcd, so a loaded machine gets fewer
// attempts: these seeds reach their shortest counterexamples (12, 1, 5, 5,
// 10 and 9 drawn actions) within 3 s even beside two other test packages,
// and the longest one needs more than 1.5 s there; the 8 s cap leaves
// room for a slower machine. The most is replicaset-no-expectations',
// which needs a create, a second reconcile of the ReplicaSet before its
// pod events arrive and an event that queues it again, amid the other
// components' steps.
var pinned = map[string]uint64{
	// Re-picked when the garbage collector began watching Services: 4
	// shrank to 13; and when the statefulset controller joined the
	// control plane (its deliveries are steps too): 21 found nothing in
	// 300 checks, 1 shrinks to 8.
	"replicaset-no-expectations":  1,
	"replicaset-edge-triggered":   1,
	"endpoints-create-only":       3,
	"endpoints-lists-unready":     3,
	"gc-trusts-cache":             1,
	"deployment-ignores-maxsurge": 7,
	// Issue 22: the transient API error and a crash mid-batch.
	// replicaset-trusts-restart's seed was re-picked (1 shrank to 43 drawn
	// actions, 8 shrinks to 8) once the caught-up oracle caught it first.
	"replicaset-swallows-errors": 3,
	"replicaset-trusts-restart":  2,
	// Issue 22's, hunted with the settle generator (Mutant.Settle); these
	// seeds shrank to 9, 2, 3, 6 and 4 drawn actions when measured
	// (annotator-writes-stale-copy's was re-picked after the merge with the
	// fault alphabet: 4 shrank to 36).
	"annotator-writes-stale-copy":       4,
	"annotator-retries-stale-copy":      4, // class 2: 7 checks, 6 drawn actions when measured
	"replicaset-owner-second-write":     5,
	"replicaset-counts-terminating":     3,
	"endpoints-keeps-terminating":       8, // re-picked when rapid began drawing cascades and finalizers (4 shrank to 33), namespaces (8 shrank to 80), and the statefulset controller joined (3 shrank to 12 or 13 at the cap; 8 shrinks to 4)
	"deployment-ignores-maxunavailable": 3,
	// Issue 16's owner lifecycle (class 6), with the settle generator's
	// cascading deletes: 5 and 4 drawn actions when measured.
	"replicaset-ignores-deletion": 2,
	"gc-forgets-terminating":      4,
	// Issue 16's namespaces, with the settle generator's namespace
	// lifecycle: 4 drawn actions when measured (re-picked when Services
	// took upstream's defaults, which changed where 5 goes: 21 drawn).
	// Re-picked when the statefulset controller joined the control plane:
	// 9 shrank to 45 drawn actions, and no seed of 1 to 18 shrinks below
	// 16 (15 gives 17), so this mutant has a longer limit (longestFor).
	"namespace-forgets-terminating": 15,
}

// longestFor are the mutants whose shortest counterexample is longer than
// longest: namespace-forgets-terminating's needs the namespace's content
// gone through every controller that watches it, the statefulset
// controller's deliveries among them.
var longestFor = map[string]int{"namespace-forgets-terminating": 20}

// TestMutantsAreCaughtAndShrunk proves CheckController has teeth: each
// buggy controller is caught within the budget, for the reason it should
// be, and shrunk to a short script.
func TestMutantsAreCaughtAndShrunk(t *testing.T) {
	for _, m := range mutants.All {
		t.Run(m.Name, func(t *testing.T) {
			seed, ok := pinned[m.Name]
			if !ok {
				t.Fatalf("mutant %s has no pinned seed", m.Name)
			}
			h := run(t, m, settings{seed: seed, checks: budget, steps: steps, shrink: shrinkTime})
			if !h.found {
				t.Fatalf("not caught in %d checks:\n%s", budget, h.report)
			}
			if !strings.Contains(h.report, m.Caught) {
				t.Errorf("caught, but not as %q:\n%s", m.Caught, h.report)
			}
			limit := longest
			if l, ok := longestFor[m.Name]; ok {
				limit = l
			}
			if h.drawn == 0 || h.drawn > limit {
				t.Errorf("counterexample has %d drawn actions, want 1..%d:\n%s", h.drawn, limit, h.report)
			}
			t.Logf("caught after %d checks, shrunk to %d drawn actions, %d in all (found in %v, %v with shrinking)", h.checks, h.drawn, h.length, h.find.Round(time.Millisecond), h.total.Round(time.Millisecond))
		})
	}
}

func TestTheCatalogueIsComplete(t *testing.T) {
	if len(mutants.All) < 6 {
		t.Fatalf("%d mutants, want at least 6", len(mutants.All))
	}
	seen := map[string]bool{}
	for _, m := range append(append([]mutants.Mutant(nil), mutants.All...), mutants.Elusive...) {
		if m.Name == "" || m.Bug == "" || m.Caught == "" || m.Spec.New == nil || m.Spec.Name == "" || seen[m.Name] {
			t.Errorf("incomplete or duplicate entry %+v", m)
		}
		seen[m.Name] = true
	}
}
