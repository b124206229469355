package model

import (
	"slices"
	"sort"
)

// The managed application's world: what the control plane does not
// decide but its kubelets report. The operator-failure studies' largest
// cause is here (images that do not pull, containers that crash or run
// out of memory, readiness that never comes or flaps), and a controller
// that reports readiness from its spec rather than from its pods is caught
// only when the world is unhappy. Each fault is an action (contract 1):
//
//   - image-fails IMAGE: every pull of the image fails from now on, as a
//     bad tag or a registry that refuses it does (enabled while an object
//     names the image and no container has pulled it); image-pulls IMAGE
//     heals it. A kubelet that cannot pull reports ErrImagePull, then
//     ImagePullBackOff, and waits. Recovery leaves a failing image failing:
//     it is the user's world, and an honest controller reports it rather
//     than converges to Ready.
//   - container-oom NODE POD: the running container is killed for memory
//     (exit 137, OOMKilled); crash-container is the same with exit 1,
//     Error. A container that crashes again after a restart waits one sync
//     in CrashLoopBackOff.
//   - readiness-fails NODE POD: the running container's readiness probe
//     fails until readiness-passes (a flap is one then the other), or until
//     the container restarts. Recovery makes every probe pass again: the
//     dependency it waited for comes back.

// ImagePullFails tells whether pulls of image fail (Host).
func (st *State) ImagePullFails(image string) bool { return st.failing[image] }

// FailingImages lists the images whose pulls fail, sorted.
func (st *State) FailingImages() []string { return sortedKeys(st.failing) }

// ImagesInUse lists, sorted, the images the stored Deployments,
// ReplicaSets, StatefulSets and Pods name: the ones whose failure means
// something.
func ImagesInUse(objs func(Kind) []Obj) []string {
	set := map[string]bool{}
	for _, k := range []Kind{KindDeployment, KindReplicaSet, KindPod, KindStatefulSet} {
		for _, o := range objs(k) {
			switch x := o.(type) {
			case *Deployment:
				set[x.Image] = true
			case *ReplicaSet:
				set[x.Image] = true
			case *Pod:
				set[x.Image] = true
			case *StatefulSet:
				set[x.Image] = true
			}
		}
	}
	delete(set, "")
	return sortedKeys(set)
}

// PullRetries are the keys a kubelet syncs again when an image pulls again:
// its pods of that image that have no running container. They stand for
// the end of the kubelet's image back-off.
func PullRetries(m *Memory, h Host, image string) []string {
	running := map[string]bool{}
	for _, c := range h.Containers(m.Node) {
		if c.Running {
			running[c.Pod] = true
		}
	}
	var out []string
	for o := range m.Each(KindPod) {
		if p := o.(*Pod); p.NodeName == m.Node && p.Image == image && !running[KeyOf(p)] {
			out = append(out, KeyOf(p))
		}
	}
	sort.Strings(out)
	return out
}

// enabledWorld reports whether a world fault can happen now.
func (st *State) enabledWorld(a Action) bool {
	switch a.Op {
	case OpImageFails:
		return !st.failing[a.Image] && slices.Contains(imagesToFail(ImagesInUse(st.Objects), st.failing, st.Containers("")), a.Image)
	case OpImagePulls:
		return st.failing[a.Image]
	case OpNodeCPUFull, OpNodeCPUFrees:
		return slices.Contains(CPUFaults(st.Objects(KindNode), st.Objects(KindPod), st.CPUFullNodes()), a)
	}
	for _, c := range st.Containers(a.Who) {
		if c.Pod == a.Key && c.Running && (a.Op == OpContainerOOM || c.Unready == (a.Op == OpReadinessPasses)) {
			return true
		}
	}
	return false
}

// imagesToFail are the images whose failure means something: named by
// an object and pulled by no container yet, so that every pod of a failing
// image waits for it (a running container would keep running with the
// image its node already has, and the end state would depend on when the
// image failed, not only on the world). An image the kubelet cannot parse
// is never pulled at all (image_name.go).
func imagesToFail(images []string, failing map[string]bool, containers []Container) []string {
	pulled := map[string]bool{}
	for _, c := range containers {
		pulled[c.Image] = true
	}
	var out []string
	for _, img := range images {
		if !failing[img] && !pulled[img] && ImageNameError(img) == "" {
			out = append(out, img)
		}
	}
	return out
}

// WorldFaults lists the world faults enabled over the given state (the
// images objects name, the failing ones, every container): the images that
// could fail, the failing ones that could pull again, then each running
// container's OOM kill and probe flip, in a stable order. The model and
// the stepped implementation both list theirs with it.
func WorldFaults(images []string, failing []string, containers []Container) []Action {
	var out []Action
	set := map[string]bool{}
	for _, img := range failing {
		set[img] = true
	}
	for _, img := range imagesToFail(images, set, containers) {
		out = append(out, Action{Op: OpImageFails, Image: img})
	}
	for _, img := range failing {
		out = append(out, Action{Op: OpImagePulls, Image: img})
	}
	for _, c := range containers {
		if !c.Running {
			continue
		}
		probe := OpReadinessFails
		if c.Unready {
			probe = OpReadinessPasses
		}
		out = append(out, Action{Op: OpContainerOOM, Who: c.Node, Key: c.Pod}, Action{Op: probe, Who: c.Node, Key: c.Pod})
	}
	return out
}

// ProbeRecovery lists the readiness-passes that end every failing probe.
func ProbeRecovery(containers []Container) []Action {
	var out []Action
	for _, c := range containers {
		if c.Running && c.Unready {
			out = append(out, Action{Op: OpReadinessPasses, Who: c.Node, Key: c.Pod})
		}
	}
	return out
}

// worldFault applies a world fault to the model's world.
func (st *State) worldFault(a Action) {
	switch a.Op {
	case OpImageFails:
		st.failing[a.Image] = true
	case OpNodeCPUFull, OpNodeCPUFrees:
		st.cpuWorldFault(a)
	case OpImagePulls:
		delete(st.failing, a.Image)
		for _, n := range st.names {
			if c := st.comps[n]; NodeOf(n) != "" && n == KubeletName(NodeOf(n)) {
				for _, k := range PullRetries(c.Memory, st, a.Image) {
					c.enqueue(k)
				}
			}
		}
	default:
		rt := st.runtime[a.Who]
		for _, ctr := range st.Containers(a.Who) {
			if ctr.Pod != a.Key || !rt.worldFault(ctr.ID, a.Op) {
				continue
			}
			// The kubelet's pod lifecycle event generator (or its
			// prober) notices.
			st.comps[KubeletName(a.Who)].enqueue(a.Key)
		}
	}
}
