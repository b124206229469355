package model

import "strconv"

// The kubelet of one node: watches Pods and acts on those bound to its node.
// A key is a pod name. It makes the runtime match the pod (start, restart,
// stop, kill orphans), reports status, and removes a terminating pod once its
// container is stopped. Its runtime outlives it: a restarted kubelet adopts
// running containers by listing the runtime.
var kubeletRole = role{
	watches: kinds(KindPod),
	keys: func(c *component, e Event) []string {
		if p := e.Obj.(*Pod); p.NodeName == c.node {
			return []string{p.Name}
		}
		return nil
	},
	resync: func(c *component, st *State) []string {
		var out []string
		for _, o := range c.list(KindPod) {
			if o.(*Pod).NodeName == c.node {
				out = append(out, o.meta().Name)
			}
		}
		for _, ctr := range st.Containers(c.node) {
			out = append(out, ctr.Pod)
		}
		return out
	},
	reconcile: reconcileKubelet,
}

// ContainerID is the runtime ID of a pod's container for one attempt.
func ContainerID(node, pod string, attempt int) string {
	return node + "/" + pod + "/" + strconv.Itoa(attempt)
}

func reconcileKubelet(c *component, st *State, t *tx, key string) {
	rt := st.runtime[c.node]
	if rt == nil {
		return
	}
	p, _ := c.get(KindPod, key).(*Pod)
	if p != nil && p.NodeName != c.node {
		p = nil
	}
	var running, exited *Container
	for _, ctr := range rt.podContainers(key) {
		switch {
		case p == nil || ctr.PodUID != p.UID || (p.Deleting && ctr.Running):
			// An orphan, or the container of a terminating pod: stop it.
			if t.local(VerbRuntimeStop, "containers/"+ctr.ID) {
				rt.remove(ctr.ID)
			}
		case ctr.Running:
			running = ctr
		default:
			exited = ctr
		}
	}
	if p == nil || t.stopped() {
		return
	}
	if p.Deleting {
		if exited != nil && t.local(VerbRuntimeStop, "containers/"+exited.ID) {
			rt.remove(exited.ID)
		}
		t.removeNow(p)
		return
	}
	// A container started now is reported not ready; it turns ready on the
	// next sync, once it has been seen running (a readiness probe passing).
	ready := running != nil
	if running == nil {
		attempt := p.Restarts
		if exited != nil {
			attempt = exited.Attempt + 1
		}
		ctr := &Container{ID: ContainerID(c.node, p.Name, attempt), Node: c.node, Pod: p.Name, PodUID: p.UID, Image: p.Image, Attempt: attempt, Running: true}
		if !t.local(VerbRuntimeStart, "containers/"+ctr.ID) {
			return
		}
		if exited != nil {
			rt.remove(exited.ID)
		}
		rt.add(ctr)
		running = ctr
	}
	np := p.shallow().(*Pod)
	np.Phase, np.Ready, np.Restarts = PhaseRunning, ready, running.Attempt
	if np.PodIP == "" {
		index := st.nodeIndex[c.node]
		np.PodIP = PodIP(index, freeSlot(c, index, p))
	}
	if np.Phase != p.Phase || np.Ready != p.Ready || np.Restarts != p.Restarts || np.PodIP != p.PodIP {
		t.update(VerbStatus, p, np)
	}
}

// freeSlot is the lowest host number no other pod on this node (in the
// view) holds.
func freeSlot(c *component, index int, p *Pod) int {
	used := map[string]bool{}
	for _, o := range c.list(KindPod) {
		if q := o.(*Pod); q.NodeName == c.node && q.Name != p.Name && q.PodIP != "" {
			used[q.PodIP] = true
		}
	}
	slot := 2
	for used[PodIP(index, slot)] {
		slot++
	}
	return slot
}
