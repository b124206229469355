package model

import "strconv"

// The kubelet of one node: watches Pods and acts on those bound to its node.
// A key is a pod's namespace/name. It makes the runtime match the pod (start, restart,
// stop, kill orphans), reports status, and removes a terminating pod once its
// container is stopped. Its runtime outlives it: a restarted kubelet adopts
// running containers by listing the runtime.
var kubeletRole = role{
	watches: kinds(KindPod),
	keyKind: KindPod,
	keys: func(c *Memory, e WatchEvent) []string {
		if p := e.Obj.(*Pod); p.NodeName == c.Node {
			return []string{KeyOf(p)}
		}
		return nil
	},
	resync: func(c *Memory, h Host) []string {
		var out []string
		for _, o := range c.List(KindPod) {
			if o.(*Pod).NodeName == c.Node {
				out = append(out, KeyOf(o))
			}
		}
		for _, ctr := range h.Containers(c.Node) {
			out = append(out, ctr.Pod)
		}
		return out
	},
	reconcile: reconcileKubelet,
}

// ContainerID is the runtime ID of a pod's container for one attempt; pod
// is the pod's key (namespace/name).
func ContainerID(node, pod string, attempt int) string {
	return node + "/" + pod + "/" + strconv.Itoa(attempt)
}

func reconcileKubelet(c *Memory, h Host, t Writer, key string) {
	p, _ := c.Get(KindPod, key).(*Pod)
	if p != nil && p.NodeName != c.Node {
		p = nil
	}
	var running, exited *Container
	for _, ctr := range h.Containers(c.Node) {
		if ctr.Pod != key {
			continue
		}
		switch {
		case p == nil || ctr.PodUID != p.UID || (p.Deleting && ctr.Running):
			// An orphan, or the container of a terminating pod: stop it.
			t.StopContainer(ctr)
		case ctr.Running:
			running = &ctr
		default:
			exited = &ctr
		}
	}
	if p == nil || t.Stopped() {
		return
	}
	if p.Deleting {
		if exited != nil {
			t.StopContainer(*exited)
		}
		t.RemoveNow(p)
		return
	}
	// A container started now is reported not ready; it turns ready on the
	// next sync, once it has been seen running (a readiness probe passing),
	// and stays ready while its probe passes.
	ready := running != nil && !running.Unready
	np := p.shallow().(*Pod)
	if running == nil {
		// A pod that ran before and has lost its container (a machine
		// replaced under the same node name) restarts it: the restart
		// count moves, so the status write wakes the next sync.
		attempt := p.Restarts
		switch {
		case exited != nil:
			attempt = exited.Attempt + 1
			np.LastReason, np.LastExitCode = exitReason(exited), exited.ExitCode
		case p.Phase == PhaseRunning:
			attempt = p.Restarts + 1
		}
		if waiting := waitingReason(h, p, exited); waiting != "" {
			// Not started: the pull failed, or a container that crashed
			// again after a restart backs off for one sync.
			np.Ready, np.Waiting = false, waiting
			if exited != nil {
				np.Restarts = exited.Attempt
			}
			if statusChanged(p, np) {
				t.Update(VerbStatus, p, np)
			}
			return
		}
		// Starting replaces the pod's exited container, if any.
		ctr := Container{ID: ContainerID(c.Node, KeyOf(p), attempt), Node: c.Node, Pod: KeyOf(p), PodUID: p.UID, Image: p.Image, Attempt: attempt, Running: true, IP: podIP(c, h, p, exited)}
		if !t.StartContainer(ctr) {
			return
		}
		running = &ctr
	}
	np.Phase, np.Ready, np.Restarts, np.Waiting = PhaseRunning, ready, running.Attempt, ""
	np.PodIP = podIP(c, h, p, running)
	if statusChanged(p, np) {
		t.Update(VerbStatus, p, np)
	}
}

// waitingReason is why the kubelet does not start p's container now, in
// its words: the image is no reference it can parse (InvalidImageName,
// for good: only a new pod, of another image, runs), the image does not
// pull (ErrImagePull, then ImagePullBackOff until the image pulls again:
// PullRetries), or the container crashed again after a restart and has
// not yet been reported backing off (CrashLoopBackOff; the sync that its
// report wakes restarts it). "" to start it.
func waitingReason(h Host, p *Pod, exited *Container) string {
	switch {
	case ImageNameError(p.Image) != "":
		return WaitingInvalidImageName
	case h.ImagePullFails(p.Image):
		if p.Waiting == WaitingErrImagePull || p.Waiting == WaitingImagePullBackOff {
			return WaitingImagePullBackOff
		}
		return WaitingErrImagePull
	case exited != nil && exited.Attempt > 0 && (p.Waiting != WaitingCrashLoopBackOff || p.Restarts != exited.Attempt):
		return WaitingCrashLoopBackOff
	}
	return ""
}

// exitReason is how an exited container ended, as lastState.terminated
// says it.
func exitReason(c *Container) string {
	if c.Reason != "" {
		return c.Reason
	}
	return ReasonError
}

// statusChanged tells whether the kubelet's status fields differ.
func statusChanged(p, np *Pod) bool {
	return np.Phase != p.Phase || np.Ready != p.Ready || np.Restarts != p.Restarts || np.PodIP != p.PodIP ||
		np.Waiting != p.Waiting || np.LastReason != p.LastReason || np.LastExitCode != p.LastExitCode
}

// podIP is the pod's address: the one it has, else the one its container
// already runs with (adopted after a restart), else the first free one in
// the node's range.
func podIP(c *Memory, h Host, p *Pod, ctr *Container) string {
	switch {
	case p.PodIP != "":
		return p.PodIP
	case ctr != nil && ctr.IP != "":
		return ctr.IP
	}
	index := h.NodeIndex(c.Node)
	return PodIP(index, freeSlot(c, h, index, p))
}

// freeSlot is the lowest host number that no other pod in the view and no
// container on the node holds. The runtime is asked too because the view
// lags the kubelet's own status writes: a container just started already
// holds its address (as CNI's IPAM state on the node does).
func freeSlot(c *Memory, h Host, index int, p *Pod) int {
	used := map[string]bool{}
	for o := range c.Each(KindPod) { // a set: the order does not matter
		if q := o.(*Pod); q.NodeName == c.Node && q != p && KeyOf(q) != KeyOf(p) && q.PodIP != "" {
			used[q.PodIP] = true
		}
	}
	for _, ctr := range h.Containers(c.Node) {
		if ctr.Pod != KeyOf(p) && ctr.IP != "" {
			used[ctr.IP] = true
		}
	}
	slot := 2
	for used[PodIP(index, slot)] {
		slot++
	}
	return slot
}
