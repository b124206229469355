package cluster

import (
	"slices"

	"github.com/converge-dev/converge/model"
)

// The nodes' CPU as a world fault (model/world_cpu.go): another tenant
// holds a node's spare CPU. The cluster keeps the set and its scheduler,
// which runs the model's decision code, counts it through the host.

// cpuFullNodes lists the full nodes, sorted.
func (n *nodes) cpuFullNodes() []string {
	n.cpuMu.Lock()
	defer n.cpuMu.Unlock()
	out := make([]string, 0, len(n.cpuFull))
	for k := range n.cpuFull {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func (n *nodes) setCPUFull(node string, full bool) {
	n.cpuMu.Lock()
	defer n.cpuMu.Unlock()
	if n.cpuFull == nil {
		n.cpuFull = map[string]bool{}
	}
	if full {
		n.cpuFull[node] = true
	} else {
		delete(n.cpuFull, node)
	}
}

// cpuWorldFault fills or frees a node; a freed node wakes the scheduler
// for every pending pod, as the model's does (upstream's scheduling queue
// moves unschedulable pods on a node's allocatable change).
func (s *Stepped) cpuWorldFault(a model.Action) {
	s.env.nodes.setCPUFull(a.Who, a.Op == model.OpNodeCPUFull)
	if a.Op == model.OpNodeCPUFull {
		return
	}
	c := s.comps[model.Scheduler]
	c.mu.Lock()
	keys := model.CPURetries(c.mem)
	c.mu.Unlock()
	for _, k := range keys {
		c.queue.Add(k)
	}
}

// CPUFullNodes lists the nodes whose spare CPU another tenant holds now,
// sorted: with FailingImages, the world a reference run is given.
func (s *Stepped) CPUFullNodes() []string { return s.env.nodes.cpuFullNodes() }
