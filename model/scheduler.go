package model

import (
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Defaults for requests and capacity, in milli-cores and MiB.
const (
	DefaultPodCPU     = 100
	DefaultPodMemory  = 128
	DefaultNodeCPU    = 4000
	DefaultNodeMemory = 8192
	DefaultMaxPods    = 110
)

// The scheduler: watches Pods and Nodes; a key is an unbound pod's
// namespace/name.
// Filter: Ready, no NoSchedule/NoExecute taint, nodeSelector, fit (cpu,
// memory, pod count). Score: least allocated after placing the pod; ties go
// to the lowest node name. It binds through the binding subresource, a CAS
// on the pod it saw.
var schedulerRole = role{
	watches: kinds(KindPod, KindNode),
	keyKind: KindPod,
	keys: func(c *Memory, e WatchEvent) []string {
		switch o := e.Obj.(type) {
		case *Pod:
			if o.NodeName == "" && e.Type != Deleted && !o.Deleting {
				return []string{KeyOf(o)}
			}
			if o.NodeName != "" && e.Type == Deleted {
				// A bound pod's resources are free: retry every pending pod.
				return pendingPods(c)
			}
		case *Node:
			// Capacity or readiness changed: retry every pending pod. A
			// heartbeat changes nothing a pod is placed by, and with a
			// thousand nodes retrying every pending pod on each one made
			// a tick cost nodes × pending pods (upstream's scheduler skips
			// such node updates too).
			if old, _ := e.Old.(*Node); e.Type == Modified && old != nil && !placementChanged(old, o) {
				return nil
			}
			return pendingPods(c)
		}
		return nil
	},
	resync:    func(c *Memory, h Host) []string { return pendingPods(c) },
	reconcile: reconcileScheduling,
}

// placementChanged reports whether a node update changes what the
// scheduler places pods by: anything but the heartbeat's times.
func placementChanged(old, n *Node) bool {
	return old.Ready != n.Ready || old.Deleting != n.Deleting || old.CPU != n.CPU || old.Memory != n.Memory || old.MaxPods != n.MaxPods ||
		!slices.Equal(old.Taints, n.Taints) || !maps.Equal(old.Labels, n.Labels)
}

func pendingPods(c *Memory) []string {
	var out []string
	for _, o := range c.List(KindPod) {
		if p := o.(*Pod); p.NodeName == "" && !p.Deleting {
			out = append(out, KeyOf(p))
		}
	}
	return out
}

func reconcileScheduling(c *Memory, h Host, t Writer, key string) {
	p, _ := c.Get(KindPod, key).(*Pod)
	if p == nil || p.NodeName != "" || p.Deleting || p.Gated {
		return
	}
	// p is unbound, so the memory's sums leave it out, as usage would.
	nodes := c.sorted(KindNode)
	node := pickNode(p, nodes, withTenant(nodes, c.sortedUse(), h.CPUFullNodes()))
	if node == "" {
		return // unschedulable until a node event
	}
	t.Bind(p, node)
}

// PickNode runs the filter and score phases over nodes, counting the
// resources of the given pods bound to each node, and the whole CPU of the
// cpuFull ones (world_cpu.go). It returns "" when no node fits.
func PickNode(p *Pod, nodes, pods []Obj, cpuFull ...string) string {
	used := tenantUsage(nodes, usage(p, pods), cpuFull)
	aligned := make([]use, len(nodes))
	for i, o := range nodes {
		aligned[i] = used[o.(*Node).Name]
	}
	return pickNode(p, nodes, aligned)
}

func pickNode(p *Pod, nodes []Obj, used []use) string {
	best, bestScore := "", -1
	for i, o := range nodes {
		n := o.(*Node)
		u := used[i]
		if !fits(p, n, u) {
			continue
		}
		cpu, mem := u.cpu+p.CPU, u.mem+p.Memory
		score := ((n.CPU-cpu)*100/n.CPU + (n.Memory-mem)*100/n.Memory) / 2
		if score > bestScore { // nodes come in name order: ties keep the lowest
			best, bestScore = n.Name, score
		}
	}
	return best
}

// use is what the pods bound to one node request.
type use struct{ cpu, mem, pods int }

// usage sums the requests of the pods bound to each node, leaving p out.
func usage(p *Pod, pods []Obj) map[string]use {
	used := map[string]use{}
	for _, o := range pods {
		q := o.(*Pod)
		if q.NodeName == "" || q.Name == p.Name {
			continue
		}
		u := used[q.NodeName]
		u.cpu += q.CPU
		u.mem += q.Memory
		u.pods++
		used[q.NodeName] = u
	}
	return used
}

// fits says misfits finds no reason, without wording any: the scheduler
// asks it of every node for every pod it places.
func fits(p *Pod, n *Node, u use) bool {
	if n.Deleting || !n.Ready || u.cpu+p.CPU > n.CPU || u.mem+p.Memory > n.Memory || u.pods+1 > n.MaxPods {
		return false
	}
	if _, tainted := repellingTaint(n); tainted {
		return false
	}
	return subset(p.NodeSelector, n.Labels)
}

// repellingTaint is n's first NoSchedule or NoExecute taint ("key=value"
// or "key"): pods have no tolerations, so it keeps every pod off.
func repellingTaint(n *Node) (string, bool) {
	for _, t := range n.Taints {
		i := strings.LastIndexByte(t, ':')
		if effect := t[i+1:]; i >= 0 && (effect == "NoSchedule" || effect == "NoExecute") {
			return t[:i], true
		}
	}
	return "", false
}

// misfits are the filter's reasons for keeping p off n, in the words of
// upstream's scheduler; none means n fits.
func misfits(p *Pod, n *Node, u use) []string {
	var out []string
	switch {
	case n.Deleting:
		out = append(out, "node(s) were being deleted")
	case !n.Ready:
		out = append(out, "node(s) were not ready")
	}
	if t, tainted := repellingTaint(n); tainted {
		key, value, _ := strings.Cut(t, "=")
		out = append(out, "node(s) had untolerated taint {"+key+": "+value+"}")
	}
	if !subset(p.NodeSelector, n.Labels) {
		out = append(out, "node(s) didn't match Pod's node affinity/selector")
	}
	if u.cpu+p.CPU > n.CPU {
		out = append(out, "Insufficient cpu")
	}
	if u.mem+p.Memory > n.Memory {
		out = append(out, "Insufficient memory")
	}
	if u.pods+1 > n.MaxPods {
		out = append(out, "Too many pods")
	}
	return out
}

// WhyUnschedulable explains why PickNode finds no node for p, as
// upstream's FailedScheduling event does: "0/3 nodes are available: 1 node(s)
// were not ready, 2 Insufficient cpu." It is "" when some node fits, and
// upstream's "no nodes available to schedule pods" when there are none.
// The cpuFull nodes' CPU is all taken (world_cpu.go).
func WhyUnschedulable(p *Pod, nodes, pods []Obj, cpuFull ...string) string {
	if len(nodes) == 0 {
		return "no nodes available to schedule pods"
	}
	used := tenantUsage(nodes, usage(p, pods), cpuFull)
	counts := map[string]int{}
	for _, o := range nodes {
		n := o.(*Node)
		reasons := misfits(p, n, used[n.Name])
		if len(reasons) == 0 {
			return ""
		}
		for _, r := range reasons {
			counts[r]++
		}
	}
	reasons := make([]string, 0, len(counts))
	for r, c := range counts {
		reasons = append(reasons, strconv.Itoa(c)+" "+r)
	}
	sort.Strings(reasons)
	msg := "0/" + strconv.Itoa(len(nodes)) + " nodes are available"
	if len(reasons) > 0 {
		msg += ": " + strings.Join(reasons, ", ")
	}
	return msg + "."
}
