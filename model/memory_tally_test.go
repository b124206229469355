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

// TestSortedUseAgreesWithASum: after any sequence of puts and removes of
// nodes and of pods bound to them, with the nodes' order and the index
// built at random moments (as the scheduler asks), what the index says
// each node has in use is what summing the viewed pods gives.
func TestSortedUseAgreesWithASum(t *testing.T) {
	for seed := range uint64(50) {
		rnd := rand.New(rand.NewPCG(seed, 11))
		m := NewMemory("scheduler")
		for step := range 300 {
			switch r := rnd.IntN(10); {
			case r == 0:
				m.Remove(Ref{Kind: KindNode, Name: fmt.Sprintf("n%d", rnd.IntN(6))})
			case r <= 2:
				m.Put(NewNode(fmt.Sprintf("n%d", rnd.IntN(6)), rnd.IntN(6), 0))
			case r == 3:
				m.Remove(Ref{Kind: KindPod, Namespace: "ns", Name: fmt.Sprintf("p%d", rnd.IntN(20))})
			case r == 4 && step%7 == 0:
				m.Clear()
			default:
				node := ""
				if rnd.IntN(4) > 0 {
					node = fmt.Sprintf("n%d", rnd.IntN(7)) // n6 is never viewed
				}
				m.Put(&Pod{Meta: Meta{Namespace: "ns", Name: fmt.Sprintf("p%d", rnd.IntN(20))}, NodeName: node,
					CPU: 100 * (1 + rnd.IntN(3)), Memory: 128 * (1 + rnd.IntN(3))})
			}
			if rnd.IntN(3) > 0 {
				continue // the index goes on being kept between the scheduler's asks
			}
			nodes, got := m.sorted(KindNode), m.sortedUse()
			want := usage(&Pod{}, m.List(KindPod))
			if len(got) != len(nodes) {
				t.Fatalf("seed %d step %d: %d uses for %d nodes", seed, step, len(got), len(nodes))
			}
			for i, o := range nodes {
				if n := o.(*Node).Name; got[i] != want[n] {
					t.Fatalf("seed %d step %d: node %s has %+v in use, the pods sum to %+v", seed, step, n, got[i], want[n])
				}
			}
		}
	}
}
