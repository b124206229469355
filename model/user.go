package model

import "maps"

// user applies a user action. Users write without preconditions, as
// `kubectl apply` and `kubectl scale` do after a fresh read.
func (st *State) user(a Action) Result {
	t := &tx{st: st, actor: "user", limit: -1}
	var err error
	switch a.Op {
	case OpApply, OpScale, OpSetImage:
		err = st.applyDeployment(t, a)
	case OpApplyService:
		s := &Service{Meta: Meta{Name: a.Key, Labels: map[string]string{"app": a.Key}}, Selector: map[string]string{"app": a.App}, Port: a.N}
		if cur, _ := st.store.get(RefOf(s)).(*Service); cur == nil {
			t.Create(s)
		} else if cur.Port != s.Port || !maps.Equal(cur.Selector, s.Selector) {
			n := cur.shallow().(*Service)
			n.Selector, n.Port = s.Selector, s.Port
			t.updateAnyVersion(VerbUpdate, n)
		}
	case OpCreatePod:
		labels := map[string]string{"app": a.Key}
		t.Create(&Pod{Meta: Meta{Name: a.Key, Labels: labels}, Image: a.Image, CPU: DefaultPodCPU, Memory: DefaultPodMemory, Phase: PhasePending})
	case OpDelete:
		cur := st.store.get(Ref{a.Kind, a.Key})
		if cur == nil {
			err = ErrNotFound
		} else {
			t.Delete(cur)
		}
	case OpAddNode:
		err = st.addNode(t, a.Who)
	case OpRemoveNode:
		cur := st.store.get(Ref{KindNode, a.Who})
		if cur == nil {
			err = ErrNotFound
			break
		}
		t.RemoveNow(cur)
		st.removeComponent(KubeletName(a.Who))
		st.removeComponent(ProxyName(a.Who))
		delete(st.runtime, a.Who) // the machine goes with its containers
		delete(st.nodeIndex, a.Who)
	case OpTick:
		st.now++
		// Time-driven work: the node lifecycle controller rechecks every node.
		if c := st.comps[NodeLifecycle]; c != nil {
			for _, n := range c.List(KindNode) {
				c.enqueue(n.meta().Name)
			}
		}
	}
	if err == nil {
		for _, w := range t.writes {
			if w.Err != nil {
				err = w.Err
			}
		}
	}
	return Result{Writes: t.writes, Err: err}
}

func (st *State) applyDeployment(t *tx, a Action) error {
	cur, _ := st.store.get(Ref{KindDeployment, a.Key}).(*Deployment)
	if cur == nil {
		if a.Op != OpApply {
			return ErrNotFound
		}
		labels := map[string]string{"app": a.Key}
		d := &Deployment{
			Meta:           Meta{Name: a.Key, Labels: labels},
			Replicas:       a.N,
			Image:          a.Image,
			PodLabels:      labels,
			MaxSurge:       IntOrPercent{25, true},
			MaxUnavailable: IntOrPercent{25, true},
			Generation:     1,
		}
		if a.Surge != nil {
			d.MaxSurge = *a.Surge
		}
		if a.Unavailable != nil {
			d.MaxUnavailable = *a.Unavailable
		}
		t.Create(d)
		return nil
	}
	d := cur.shallow().(*Deployment)
	switch a.Op {
	case OpApply:
		d.Replicas, d.Image = a.N, a.Image
		if a.Surge != nil {
			d.MaxSurge = *a.Surge
		}
		if a.Unavailable != nil {
			d.MaxUnavailable = *a.Unavailable
		}
	case OpScale:
		d.Replicas = a.N
	case OpSetImage:
		d.Image = a.Image
	}
	if d.Replicas == cur.Replicas && d.Image == cur.Image && d.MaxSurge == cur.MaxSurge && d.MaxUnavailable == cur.MaxUnavailable {
		return nil // nothing changed: no write, as with a no-op apply
	}
	d.Generation++
	t.updateAnyVersion(VerbUpdate, d)
	return nil
}

func (st *State) addNode(t *tx, name string) error {
	if st.store.get(Ref{KindNode, name}) != nil {
		return ErrAlreadyExists
	}
	n := &Node{
		Meta:         Meta{Name: name, Labels: map[string]string{"kubernetes.io/hostname": name}},
		Index:        st.store.nodes,
		CPU:          DefaultNodeCPU,
		Memory:       DefaultNodeMemory,
		MaxPods:      DefaultMaxPods,
		Ready:        true,
		Heartbeat:    st.now,
		TransitionAt: st.now,
	}
	if t.Create(n) == 0 {
		return nil
	}
	st.store.nodes++
	st.nodeIndex[name] = n.Index
	st.runtime[name] = newNodeRuntime() // before the kubelet lists it
	st.addComponent(KubeletName(name))
	st.addComponent(ProxyName(name))
	return nil
}
