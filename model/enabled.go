package model

// enabled reports whether an action can happen now. User actions always
// can (they may fail, which is a result, not a refusal), given a name.
func (st *State) enabled(a Action) bool {
	switch a.Op {
	case OpApply, OpScale, OpSetImage, OpDelete, OpApplyService, OpCreatePod, OpAddFinalizer, OpRemoveFinalizer, OpCreateNamespace, OpApplyStatefulSet:
		return a.Key != "" && (a.Image != "" || (a.Op != OpApply && a.Op != OpSetImage && a.Op != OpCreatePod && a.Op != OpApplyStatefulSet))
	case OpAddNode, OpRemoveNode:
		return a.Who != "" && NodeOf(KubeletName(a.Who)) == a.Who
	case OpTick, OpCompact:
		return true
	case OpHeartbeat:
		c := st.comps[KubeletName(a.Who)]
		n, _ := st.store.get(Ref{Kind: KindNode, Name: a.Who}).(*Node)
		return c != nil && !c.down && n != nil && (n.Heartbeat < st.now || !n.Ready)
	case OpCrashContainer:
		for _, c := range st.Containers(a.Who) {
			if c.Pod == a.Key && c.Running {
				return true
			}
		}
		return false
	case OpNodeDown, OpNodeUp:
		c := st.comps[KubeletName(a.Who)]
		return c != nil && c.down == (a.Op == OpNodeUp)
	case OpImageFails, OpImagePulls, OpContainerOOM, OpReadinessFails, OpReadinessPasses, OpNodeCPUFull, OpNodeCPUFrees:
		return st.enabledWorld(a)
	}
	c := st.comps[a.Who]
	if c == nil {
		return false
	}
	switch a.Op {
	case OpDeliver:
		if c.held || c.down || c.broken || !c.role.watches.has(a.Kind) {
			return false
		}
		_, ok := c.nextEvent(st.store, a.Kind)
		return ok
	case OpRelist:
		return !c.held && !c.down && c.broken
	case OpReconcile:
		return !c.down && c.queued[a.Key] && a.CrashAfter >= 0
	case OpHold:
		return !c.held
	case OpRelease:
		return c.held
	case OpDropWatch, OpCrash:
		return !c.down
	case OpAPIError:
		return !c.down && c.apiErr == 0 && TransientCode(a.N)
	case OpTimeTravel:
		return !c.down && !c.broken
	}
	return false
}

// Enabled lists every component step and fault that can happen now.
// User actions take parameters and are always possible, so they are not
// listed.
func (st *State) Enabled() []Action {
	return append(st.EnabledSteps(), st.EnabledFaults()...)
}

// EnabledSteps lists the component steps that can happen now, in a stable
// order: per component (sorted), its delivery, then its reconciles in queue
// order; then the heartbeats that are due.
func (st *State) EnabledSteps() []Action {
	var out []Action
	for _, n := range st.names {
		out = append(out, st.enabledDeliveries(n)...)
		if c := st.comps[n]; !c.down {
			for _, k := range c.queue {
				out = append(out, Action{Op: OpReconcile, Who: n, Key: k})
			}
		}
	}
	return append(out, st.EnabledHeartbeats()...)
}

// EnabledFaults lists the faults that can be injected now, in a stable order.
func (st *State) EnabledFaults() []Action {
	containers, nodes, world := st.Containers(""), st.Objects(KindNode), st.EnabledWorldFaults()
	// At most hold or release, drop-watch, crash and a transient fault a
	// component, then the containers', the nodes', compact and the world's:
	// one allocation instead of a growing slice.
	out := make([]Action, 0, 4*len(st.names)+len(containers)+len(nodes)+1+len(world))
	for _, n := range st.names {
		for _, op := range []Op{OpHold, OpRelease, OpDropWatch, OpCrash} {
			if a := (Action{Op: op, Who: n}); st.enabled(a) {
				out = append(out, a)
			}
		}
		if a := TransientFault(n, st.now); st.enabled(a) {
			out = append(out, a)
		}
	}
	for _, c := range containers {
		if c.Running {
			out = append(out, Action{Op: OpCrashContainer, Who: c.Node, Key: c.Pod})
		}
	}
	for _, o := range nodes {
		for _, op := range []Op{OpNodeDown, OpNodeUp} {
			if a := (Action{Op: op, Who: o.meta().Name}); st.enabled(a) {
				out = append(out, a)
			}
		}
	}
	out = append(out, Action{Op: OpCompact})
	return append(out, world...)
}

// EnabledWorldFaults lists the world faults that can happen now
// (world.go), in a stable order. EnabledFaults lists them last, so that
// the faults drawn before they were added keep their indices, and the
// nodes' CPU (world_cpu.go) last of them for the same reason.
func (st *State) EnabledWorldFaults() []Action {
	return append(WorldFaults(ImagesInUse(st.Objects), st.FailingImages(), st.Containers("")),
		CPUFaults(st.Objects(KindNode), st.Objects(KindPod), st.CPUFullNodes())...)
}

// enabledDeliveries lists a component's relist or its informers' pending
// deliveries, in kind order.
func (st *State) enabledDeliveries(n string) []Action {
	var out []Action
	st.deliveries(n, func(a Action) bool { out = append(out, a); return true })
	return out
}

// firstDelivery is enabledDeliveries' first, without the list: the
// quiesce's fair schedule asks for it on every step.
func (st *State) firstDelivery(n string) (first Action, ok bool) {
	st.deliveries(n, func(a Action) bool { first, ok = a, true; return false })
	return first, ok
}

// deliveries yields what enabledDeliveries lists until yield says stop.
func (st *State) deliveries(n string, yield func(Action) bool) {
	c := st.comps[n]
	if c == nil || c.held || c.down {
		return
	}
	if c.broken {
		yield(Action{Op: OpRelist, Who: n})
		return
	}
	for _, k := range c.kinds {
		if _, ok := c.nextEvent(st.store, k); ok {
			if !yield(Action{Op: OpDeliver, Who: n, Kind: k}) {
				return
			}
		}
	}
}
