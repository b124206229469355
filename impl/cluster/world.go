package cluster

import (
	"context"

	"github.com/converge-dev/converge/impl/container"
	"github.com/converge-dev/converge/model"
)

// The world faults (model/world.go) over the fake runtime: the fake host
// fails the pulls of an image on every node, kills a container for memory
// or fails its readiness probe, and the kubelet's decision code (the
// model's) reports what it sees. With runtimes a user gives (real ones)
// there is no fake host, and no world fault is enabled.

// worldFaults reports whether the cluster's runtime can take world
// faults: the built-in fake.
func (n *nodes) worldFaults() bool { return n.fakes != nil }

// imagePullFails tells whether a pull of image fails now.
func (n *nodes) imagePullFails(image string) bool {
	return n.fakes != nil && n.fakes.PullFails(image)
}

// failingImages lists the images whose pulls fail, sorted.
func (n *nodes) failingImages() []string {
	if n.fakes == nil {
		return nil
	}
	return n.fakes.FailingPulls()
}

// containerFault kills pod's running container on node for memory or
// flips its readiness probe; it reports whether a container took it.
func (n *nodes) containerFault(ctx context.Context, a model.Action) bool {
	f, ok := n.runtimeOf(a.Who).(*container.Fake)
	if !ok {
		return false
	}
	for _, c := range n.containers(ctx, a.Who) {
		if c.Pod != a.Key || !c.Running {
			continue
		}
		if a.Op == model.OpContainerOOM {
			return f.OOMKill(runtimeID(c.ID)) == nil
		}
		changed, err := f.SetReadiness(runtimeID(c.ID), a.Op == model.OpReadinessPasses)
		return err == nil && changed
	}
	return false
}

// worldFault applies a world fault, waking the kubelets that notice it as
// the model's do.
func (s *Stepped) worldFault(a model.Action) {
	n := s.env.nodes
	switch a.Op {
	case model.OpNodeCPUFull, model.OpNodeCPUFrees:
		s.cpuWorldFault(a)
	case model.OpImageFails:
		n.fakes.FailPulls(a.Image)
	case model.OpImagePulls:
		n.fakes.HealPulls(a.Image)
		h := &host{env: s.env, ctx: s.ctx}
		for _, name := range s.names {
			if node := model.NodeOf(name); node != "" && name == model.KubeletName(node) {
				c := s.comps[name]
				c.mu.Lock()
				keys := model.PullRetries(c.mem, h, a.Image)
				c.mu.Unlock()
				for _, k := range keys {
					c.queue.Add(k)
				}
			}
		}
	default:
		if n.containerFault(s.ctx, a) {
			// The kubelet's pod lifecycle event generator (or its
			// prober) notices.
			s.comps[model.KubeletName(a.Who)].queue.Add(a.Key)
		}
	}
}

// enabledWorld mirrors the model's enabledWorld over the implementation.
func (s *Stepped) enabledWorld(a model.Action) bool {
	for _, w := range s.EnabledWorldFaults() {
		if w == a {
			return true
		}
	}
	return false
}

// EnabledWorldFaults lists the world faults that can happen now, in the
// model's order.
func (s *Stepped) EnabledWorldFaults() []model.Action {
	n := s.env.nodes
	if !n.worldFaults() {
		return nil
	}
	return append(model.WorldFaults(model.ImagesInUse(s.Objects), n.failingImages(), n.all(s.ctx)),
		model.CPUFaults(s.Objects(model.KindNode), s.Objects(model.KindPod), n.cpuFullNodes())...)
}

// FailingImages lists the images whose pulls fail now, sorted: the
// world's state a reference cluster replaying the same run is given by
// applying image-fails for each.
func (s *Stepped) FailingImages() []string { return s.env.nodes.failingImages() }

// StartWorld sets the images whose pulls fail and the nodes whose CPU
// another tenant holds before the run begins: the world a reference run of
// another run's inputs is given (that run's FailingImages and
// CPUFullNodes), so that it sees the same world. It is no action (none is
// recorded), and it reports false with a runtime the user gave.
func (s *Stepped) StartWorld(failingImages, cpuFullNodes []string) bool {
	if !s.env.nodes.worldFaults() {
		return false
	}
	s.env.nodes.fakes.FailPulls(failingImages...)
	for _, n := range cpuFullNodes {
		s.env.nodes.setCPUFull(n, true)
	}
	return true
}

// DisableWorldFaults leaves the world faults out of EnabledFaults, for a
// check that has not asked for them (they are opt-in while the
// differential oracle cannot yet tell a stuck rollout from a bug).
func (s *Stepped) DisableWorldFaults() { s.worldOff = true }
