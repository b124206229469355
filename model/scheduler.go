package model

import "strings"

// Defaults for requests and capacity, in milli-cores and MiB.
const (
	DefaultPodCPU     = 100
	DefaultPodMemory  = 128
	DefaultNodeCPU    = 4000
	DefaultNodeMemory = 8192
	DefaultMaxPods    = 110
)

// The scheduler: watches Pods and Nodes; a key is an unbound pod's name.
// Filter: Ready, no NoSchedule/NoExecute taint, nodeSelector, fit (cpu,
// memory, pod count). Score: least allocated after placing the pod; ties go
// to the lowest node name. It binds through the binding subresource, a CAS
// on the pod it saw.
var schedulerRole = role{
	watches: kinds(KindPod, KindNode),
	keys: func(c *Memory, e Event) []string {
		switch o := e.Obj.(type) {
		case *Pod:
			if o.NodeName == "" && e.Type != Deleted && !o.Deleting {
				return []string{o.Name}
			}
		case *Node:
			// Capacity or readiness changed: retry every pending pod.
			return pendingPods(c)
		}
		return nil
	},
	resync:    func(c *Memory, h Host) []string { return pendingPods(c) },
	reconcile: reconcileScheduling,
}

func pendingPods(c *Memory) []string {
	var out []string
	for _, o := range c.List(KindPod) {
		if p := o.(*Pod); p.NodeName == "" && !p.Deleting {
			out = append(out, p.Name)
		}
	}
	return out
}

func reconcileScheduling(c *Memory, h Host, t Writer, key string) {
	p, _ := c.Get(KindPod, key).(*Pod)
	if p == nil || p.NodeName != "" || p.Deleting {
		return
	}
	node := PickNode(p, c.List(KindNode), c.List(KindPod))
	if node == "" {
		return // unschedulable until a node event
	}
	t.Bind(p, node)
}

// PickNode runs the filter and score phases over nodes, counting the
// resources of the given pods bound to each node. It returns "" when no node
// fits.
func PickNode(p *Pod, nodes, pods []Obj) string {
	type use struct{ cpu, mem, pods int }
	used := map[string]*use{}
	for _, o := range pods {
		q := o.(*Pod)
		if q.NodeName == "" || q.Name == p.Name {
			continue
		}
		u := used[q.NodeName]
		if u == nil {
			u = &use{}
			used[q.NodeName] = u
		}
		u.cpu += q.CPU
		u.mem += q.Memory
		u.pods++
	}
	best, bestScore := "", -1
	for _, o := range nodes {
		n := o.(*Node)
		if !Schedulable(n) || !subset(p.NodeSelector, n.Labels) {
			continue
		}
		u := used[n.Name]
		if u == nil {
			u = &use{}
		}
		cpu, mem := u.cpu+p.CPU, u.mem+p.Memory
		if cpu > n.CPU || mem > n.Memory || u.pods+1 > n.MaxPods {
			continue
		}
		score := ((n.CPU-cpu)*100/n.CPU + (n.Memory-mem)*100/n.Memory) / 2
		if score > bestScore { // nodes come in name order: ties keep the lowest
			best, bestScore = n.Name, score
		}
	}
	return best
}

// Schedulable: Ready and no taint that repels pods without tolerations.
func Schedulable(n *Node) bool {
	if !n.Ready || n.Deleting {
		return false
	}
	for _, t := range n.Taints {
		if strings.HasSuffix(t, ":NoSchedule") || strings.HasSuffix(t, ":NoExecute") {
			return false
		}
	}
	return true
}
