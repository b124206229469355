package model

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestOwnedPodsFollowsTheView: the owner index, built on first use and
// kept by Put and Remove, always holds exactly the viewed pods of each
// owner, through adoption, release (owner cleared) and removal; and List,
// kept the same way, always holds the viewed pods in key order.
func TestOwnedPodsFollowsTheView(t *testing.T) {
	rnd := rand.New(rand.NewPCG(3, 4))
	m := NewMemory(ReplicaSetController)
	for i := range 2000 {
		name := fmt.Sprintf("p-%d", rnd.IntN(40))
		switch rnd.IntN(4) {
		case 0:
			m.Remove(Ref{Kind: KindPod, Name: name})
		default:
			m.Put(&Pod{Meta: Meta{Name: name, UID: int64(i + 1), Owner: Owner{Kind: KindReplicaSet, UID: int64(rnd.IntN(4))}}})
		}
		if i == 50 {
			m.OwnedPods(1) // build the index mid-way
		}
		if i < 50 {
			continue
		}
		listed := m.List(KindPod)
		keys := slices.Sorted(maps.Keys(m.view[KindPod]))
		if len(listed) != len(keys) {
			t.Fatalf("step %d: List has %d pods, the view %d", i, len(listed), len(keys))
		}
		for j, o := range listed {
			if o != m.view[KindPod][keys[j]] {
				t.Fatalf("step %d: List[%d] is %s, the view's %s is another", i, j, o.meta().Name, keys[j])
			}
		}
		for uid := range int64(4) {
			var want []string
			for _, o := range m.List(KindPod) {
				if o.meta().Owner.UID == uid && uid != 0 {
					want = append(want, o.meta().Name)
				}
			}
			var got []string
			for p := range m.OwnedPods(uid) {
				got = append(got, p.Name)
				if m.Get(KindPod, p.Name) != Obj(p) {
					t.Fatalf("step %d: OwnedPods(%d) yields a stale %s", i, uid, p.Name)
				}
			}
			slices.Sort(got)
			if !slices.Equal(got, want) {
				t.Fatalf("step %d: OwnedPods(%d) = %v, the view has %v", i, uid, got, want)
			}
		}
	}
}
