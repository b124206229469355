package model

import (
	"fmt"
	"testing"
)

// FuzzFitsAgreesWithMisfits: the scheduler's fast filter says a node fits
// exactly when the worded one finds no reason against it.
func FuzzFitsAgreesWithMisfits(f *testing.F) {
	f.Add(false, true, 100, 128, 3900, 8000, 109, "", "", "")
	f.Add(false, true, 100, 128, 0, 0, 0, "gpu=yes:NoSchedule", "zone", "a")
	f.Add(true, false, 5000, 9000, 0, 0, 0, "k:NoExecute", "", "")
	f.Add(false, true, 1, 1, 0, 0, 110, "PreferNoSchedule", "zone", "")
	f.Fuzz(func(t *testing.T, deleting, ready bool, cpu, mem, usedCPU, usedMem, usedPods int, taint, selKey, selValue string) {
		p := &Pod{CPU: cpu, Memory: mem}
		if selKey != "" {
			p.NodeSelector = map[string]string{selKey: selValue}
		}
		n := NewNode("n", 0, 0)
		n.Ready, n.Deleting, n.Labels = ready, deleting, map[string]string{"zone": "a"}
		if taint != "" {
			n.Taints = []string{taint}
		}
		u := use{cpu: usedCPU, mem: usedMem, pods: usedPods}
		if got, want := fits(p, n, u), len(misfits(p, n, u)) == 0; got != want {
			t.Fatalf("fits = %v, misfits = %q", got, misfits(p, n, u))
		}
	})
}

// BenchmarkPickNode1000Nodes is one placement among a thousand nodes, a
// tenth of them full: the scheduler's cost per pod at issue 23's size.
func BenchmarkPickNode1000Nodes(b *testing.B) {
	nodes := make([]Obj, 1000)
	used := make([]use, len(nodes))
	for i := range nodes {
		nodes[i] = NewNode(fmt.Sprintf("node-%04d", i), i, 0)
		used[i] = use{cpu: 100 * (i % 40), mem: 128 * (i % 40), pods: i % 40}
		if i%10 == 0 {
			used[i] = use{pods: DefaultMaxPods}
		}
	}
	p := &Pod{Meta: Meta{Name: "p"}, CPU: DefaultPodCPU, Memory: DefaultPodMemory}
	for b.Loop() {
		if pickNode(p, nodes, used) == "" {
			b.Fatal("no node")
		}
	}
}
