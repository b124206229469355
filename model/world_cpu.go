package model

import "slices"

// node-cpu-full NODE: another tenant's workload, outside the check, takes
// the node's spare CPU, so the scheduler's fit filter keeps every new pod
// that requests CPU off it with upstream's "Insufficient cpu"
// (NodeResourcesFit); node-cpu-frees NODE gives it back. The tenant is no
// Pod object (an operator would list it): the scheduler counts the node's
// whole CPU as requested. Pods already bound keep running, as the kubelet
// evicts for memory or disk pressure, never for CPU requests.
//
// It is enabled only on a node no pod is bound to now. A pod bound before
// the fault would stay where a reference run that starts with the node
// full never puts it; with none bound, every placement made so far chose
// another node, so taking this one away from the start changes none of
// them, and the end state does not depend on when the node filled.
//
// When the node frees, the scheduler retries every pending pod, as
// upstream's scheduling queue moves its unschedulable pods to active on a
// node's allocatable change. Recovery frees every node: unlike a bad
// image, the CPU another tenant borrows comes back when its batch ends,
// and a cluster whose every node stays full never converges.

// CPUFullNodes lists the nodes whose spare CPU another tenant holds,
// sorted (Host).
func (st *State) CPUFullNodes() []string { return sortedKeys(st.cpuFull) }

// CPUFaults lists node-cpu-full for each node (in name order) that is not
// full and has no pod bound, then node-cpu-frees for each full node. The
// model and the implementation both list theirs with it.
func CPUFaults(nodes, pods []Obj, full []string) []Action {
	bound := map[string]bool{}
	for _, o := range pods {
		if p := o.(*Pod); p.NodeName != "" {
			bound[p.NodeName] = true
		}
	}
	var out []Action
	for _, o := range nodes {
		if n := o.(*Node).Name; !bound[n] && !slices.Contains(full, n) {
			out = append(out, Action{Op: OpNodeCPUFull, Who: n})
		}
	}
	for _, n := range full {
		out = append(out, Action{Op: OpNodeCPUFrees, Who: n})
	}
	return out
}

// CPURecovery lists the node-cpu-frees that give back every node's CPU.
func CPURecovery(full []string) []Action {
	out := make([]Action, 0, len(full))
	for _, n := range full {
		out = append(out, Action{Op: OpNodeCPUFrees, Who: n})
	}
	return out
}

// withTenant is used (aligned with nodes) with every full node's CPU
// taken; used itself when no node is full (it may be the memory's cache,
// which it leaves alone).
func withTenant(nodes []Obj, used []use, full []string) []use {
	if len(full) == 0 {
		return used
	}
	out := slices.Clone(used)
	for i, o := range nodes {
		if n := o.(*Node); slices.Contains(full, n.Name) {
			out[i].cpu = max(out[i].cpu, n.CPU)
		}
	}
	return out
}

// tenantUsage is usage's map with every full node's CPU taken.
func tenantUsage(nodes []Obj, used map[string]use, full []string) map[string]use {
	for _, o := range nodes {
		if n := o.(*Node); slices.Contains(full, n.Name) {
			u := used[n.Name]
			u.cpu = max(u.cpu, n.CPU)
			used[n.Name] = u
		}
	}
	return used
}

// cpuWorldFault applies node-cpu-full or node-cpu-frees.
func (st *State) cpuWorldFault(a Action) {
	if a.Op == OpNodeCPUFull {
		st.cpuFull[a.Who] = true
		return
	}
	delete(st.cpuFull, a.Who)
	c := st.comps[Scheduler]
	for _, k := range CPURetries(c.Memory) {
		c.enqueue(k)
	}
}

// CPURetries are the keys the scheduler retries when a node's CPU frees:
// every pending pod it sees.
func CPURetries(m *Memory) []string { return pendingPods(m) }
