package model

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestOwnedTallyAgreesWithAWalk: after any sequence of puts and removes
// of pods (owners, labels, readiness and deletion drawn at random), the
// owner index's tally is what going through the owner's pods counts, as
// the ReplicaSet controller used to count them.
func TestOwnedTallyAgreesWithAWalk(t *testing.T) {
	labelSets := []map[string]string{{"app": "a"}, {"app": "b"}, {"app": "a", "tier": "web"}, nil}
	for seed := range uint64(50) {
		rnd := rand.New(rand.NewPCG(seed, 7))
		m := NewMemory("replicaset-controller")
		m.buildOwned()
		for step := range 300 {
			name := fmt.Sprintf("p%d", rnd.IntN(20))
			if rnd.IntN(5) == 0 {
				m.Remove(Ref{Kind: KindPod, Namespace: "ns", Name: name})
			} else {
				p := &Pod{Meta: Meta{Namespace: "ns", Name: name, Labels: labelSets[rnd.IntN(len(labelSets))],
					Owner: Owner{Kind: KindReplicaSet, UID: int64(rnd.IntN(3))}, Deleting: rnd.IntN(6) == 0}, Ready: rnd.IntN(2) == 0}
				m.Put(p)
			}
			for uid := range int64(3) {
				for _, sel := range labelSets {
					var selected, ready, strays int
					for p := range m.OwnedPods(uid) {
						switch {
						case p.Deleting:
						case Matches(sel, p.Labels):
							selected++
							if p.Ready {
								ready++
							}
						default:
							strays++
						}
					}
					gs, gr, gst := m.OwnedTally(uid, sel)
					if uid == 0 {
						selected, ready, strays = 0, 0, 0 // no owner: not indexed
					}
					if gs != selected || gr != ready || gst != strays {
						t.Fatalf("seed %d step %d owner %d selector %v: tally (%d, %d, %d), walk (%d, %d, %d)",
							seed, step, uid, sel, gs, gr, gst, selected, ready, strays)
					}
				}
			}
		}
	}
}
