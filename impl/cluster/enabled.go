package cluster

import (
	"context"

	"github.com/converge-dev/converge/model"
)

// enabled mirrors model.State's rules, over the implementation's state.
func (s *Stepped) enabled(a model.Action) bool {
	switch a.Op {
	case model.OpApply, model.OpScale, model.OpSetImage, model.OpDelete, model.OpApplyService, model.OpCreatePod, model.OpAddFinalizer, model.OpRemoveFinalizer, model.OpCreateNamespace, model.OpApplyStatefulSet:
		return a.Key != "" && (a.Image != "" || (a.Op != model.OpApply && a.Op != model.OpSetImage && a.Op != model.OpCreatePod && a.Op != model.OpApplyStatefulSet))
	case model.OpAddNode, model.OpRemoveNode:
		return a.Who != "" && model.NodeOf(model.KubeletName(a.Who)) == a.Who
	case model.OpTick, model.OpCompact:
		return true
	case model.OpHeartbeat:
		c := s.comps[model.KubeletName(a.Who)]
		n, _ := (&host{env: s.env, ctx: s.ctx}).Live(model.Ref{Kind: model.KindNode, Name: a.Who}).(*model.Node)
		return c != nil && !c.down && n != nil && (n.Heartbeat < s.logical.Load() || !n.Ready)
	case model.OpCrashContainer:
		for _, c := range s.env.nodes.containers(s.ctx, a.Who) {
			if c.Pod == a.Key && c.Running {
				return true
			}
		}
		return false
	case model.OpNodeDown, model.OpNodeUp:
		c := s.comps[model.KubeletName(a.Who)]
		return c != nil && c.down == (a.Op == model.OpNodeUp)
	case model.OpImageFails, model.OpImagePulls, model.OpContainerOOM, model.OpReadinessFails, model.OpReadinessPasses, model.OpNodeCPUFull, model.OpNodeCPUFrees:
		return s.enabledWorld(a)
	}
	c := s.comps[a.Who]
	if c == nil {
		return false
	}
	switch a.Op {
	case model.OpDeliver:
		return !c.held && !c.down && !c.broken && c.inf[a.Kind] != nil && s.pending(c, a.Kind)
	case model.OpRelist:
		return !c.held && !c.down && c.broken
	case model.OpReconcile:
		return !c.down && a.CrashAfter >= 0 && contains(c.queue.Keys(), a.Key)
	case model.OpHold:
		return !c.held
	case model.OpRelease:
		return c.held
	case model.OpDropWatch, model.OpCrash:
		return !c.down
	case model.OpAPIError:
		return !c.down && c.armed() == 0 && model.TransientCode(a.N)
	case model.OpTimeTravel:
		return !c.down && !c.broken
	}
	return false
}

func contains(keys []string, k string) bool {
	for _, x := range keys {
		if x == k {
			return true
		}
	}
	return false
}

// deliveries lists a component's relist or pending deliveries, in kind order.
func (s *Stepped) deliveries(n string) []model.Action {
	c := s.comps[n]
	if c == nil || c.held || c.down {
		return nil
	}
	if c.broken {
		return []model.Action{{Op: model.OpRelist, Who: n}}
	}
	var out []model.Action
	for _, k := range c.kinds {
		if s.pending(c, k) {
			out = append(out, model.Action{Op: model.OpDeliver, Who: n, Kind: k})
		}
	}
	return out
}

// EnabledSteps lists the component steps that can happen now, in the
// model's order.
func (s *Stepped) EnabledSteps() []model.Action {
	var out []model.Action
	for _, n := range s.names {
		out = append(out, s.deliveries(n)...)
		if c := s.comps[n]; !c.down {
			for _, k := range c.queue.Keys() {
				out = append(out, model.Action{Op: model.OpReconcile, Who: n, Key: k})
			}
		}
	}
	return append(out, s.heartbeats(s.ctx)...)
}

func (s *Stepped) heartbeats(ctx context.Context) []model.Action {
	var out []model.Action
	for _, n := range s.Objects(model.KindNode) {
		node := n.(*model.Node)
		c := s.comps[model.KubeletName(node.Name)]
		if c != nil && !c.down && (node.Heartbeat < s.logical.Load() || !node.Ready) {
			out = append(out, model.Action{Op: model.OpHeartbeat, Who: node.Name})
		}
	}
	return out
}

// NextQuiesceStep follows model.State.NextQuiesceStep's fair schedule.
func (s *Stepped) NextQuiesceStep() (model.Action, bool) {
	for _, n := range s.names {
		if ds := s.deliveries(n); len(ds) > 0 {
			return ds[0], true
		}
	}
	for _, retries := range []bool{false, true} {
		names := s.names
		if retries {
			names = model.RetryOrder(s.names, s.lastRetry)
		}
		for _, n := range names {
			c := s.comps[n]
			if c.down {
				continue
			}
			for _, k := range c.queue.Keys() {
				if rev, idle := c.idle[k]; retries && idle && rev == s.env.latestWrite() {
					continue // a poll that would find the store as it left it
				}
				if c.queue.IsRetry(k) == retries {
					return model.Action{Op: model.OpReconcile, Who: n, Key: k}, true
				}
			}
		}
		if hb := s.heartbeats(s.ctx); !retries && len(hb) > 0 {
			return hb[0], true
		}
	}
	return model.Action{}, false
}

// Recovery lists the actions that end every fault, as the model's does.
func (s *Stepped) Recovery() []model.Action {
	var out []model.Action
	for _, n := range s.names {
		if s.comps[n].held {
			out = append(out, model.Action{Op: model.OpRelease, Who: n})
		}
	}
	for _, n := range s.names {
		if node := model.NodeOf(n); node != "" && n == model.KubeletName(node) && s.comps[n].down {
			out = append(out, model.Action{Op: model.OpNodeUp, Who: node})
		}
	}
	// Failing probes pass again and full nodes free; failing images stay
	// failing.
	out = append(out, model.ProbeRecovery(s.env.nodes.all(s.ctx))...)
	return append(out, model.CPURecovery(s.env.nodes.cpuFullNodes())...)
}

// EnabledFaults lists the faults that can be injected now, in the model's
// order.
func (s *Stepped) EnabledFaults() []model.Action {
	var out []model.Action
	for _, n := range s.names {
		for _, op := range []model.Op{model.OpHold, model.OpRelease, model.OpDropWatch, model.OpCrash} {
			if a := (model.Action{Op: op, Who: n}); s.enabled(a) {
				out = append(out, a)
			}
		}
		if a := model.TransientFault(n, s.logical.Load()); s.enabled(a) {
			out = append(out, a)
		}
	}
	for _, c := range s.env.nodes.all(s.ctx) {
		if c.Running {
			out = append(out, model.Action{Op: model.OpCrashContainer, Who: c.Node, Key: c.Pod})
		}
	}
	for _, o := range s.Objects(model.KindNode) {
		for _, op := range []model.Op{model.OpNodeDown, model.OpNodeUp} {
			if a := (model.Action{Op: op, Who: model.MetaOf(o).Name}); s.enabled(a) {
				out = append(out, a)
			}
		}
	}
	out = append(out, model.Action{Op: model.OpCompact})
	if s.worldOff {
		return out
	}
	return append(out, s.EnabledWorldFaults()...)
}

// Objects returns the stored objects of one kind, projected, in name order.
func (s *Stepped) Objects(k model.Kind) []model.Obj {
	lists, _ := s.projected(s.ctx, listedResource(k)) // objects that do not project are left out
	if lists == nil {
		return nil
	}
	snap := &model.Snapshot{Objects: map[model.Ref]model.Obj{}}
	for _, o := range lists[0] {
		snap.Objects[model.RefOf(o)] = o
	}
	return snap.List(k)
}
