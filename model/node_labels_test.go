package model

import "testing"

// TestNodeSelectsOnWellKnownLabels: a registered node carries the labels a
// kubelet sets, so a pod selecting kubernetes.io/os: linux (kubebuilder's
// manager, most charts) or the arch schedules.
func TestNodeSelectsOnWellKnownLabels(t *testing.T) {
	nodes := []Obj{NewNode("node-1", 0, 0)}
	for _, sel := range []map[string]string{
		{LabelOS: "linux"}, {LabelArch: NodeArch}, {LabelOSBeta: "linux", LabelArchBeta: NodeArch}, {LabelHostname: "node-1"},
	} {
		p := &Pod{CPU: DefaultPodCPU, Memory: DefaultPodMemory, NodeSelector: sel}
		if got := PickNode(p, nodes, nil); got != "node-1" {
			t.Errorf("nodeSelector %v: placed on %q: %s", sel, got, WhyUnschedulable(p, nodes, nil))
		}
	}
}
