package model

import (
	"maps"
	"slices"
)

// UserWrite is the store write a user action makes (kubectl's write):
// Create (Before nil) or an unconditional Update of Before to After, or a
// Delete of Before. Users write without preconditions, as `kubectl apply`
// and `kubectl scale` do after a fresh read. Node registration and removal
// are the driver's business (they boot or remove a machine).
type UserWrite struct {
	Verb          Verb
	Before, After Obj
	Policy        Propagation // a delete's: kubectl names one, Background by default
}

// UserIntent computes the write of apply, scale, set-image, apply-service,
// create-pod, delete and add- and remove-finalizer from the current object (nil if absent). A nil
// write with a nil error means nothing to change. Both drivers use it.
func UserIntent(a Action, cur Obj) (*UserWrite, error) {
	target := a.Target()
	switch a.Op {
	case OpApply, OpScale, OpSetImage:
		d, _ := cur.(*Deployment)
		return deploymentIntent(a, target, d)
	case OpCreateNamespace:
		return &UserWrite{Verb: VerbCreate, After: NewNamespace(target.Name)}, nil
	case OpApplyStatefulSet:
		s, _ := cur.(*StatefulSet)
		return statefulSetIntent(a, target, s)
	case OpApplyService:
		s := &Service{Meta: Meta{Name: target.Name, Namespace: target.Namespace, Labels: map[string]string{"app": target.Name}}, Selector: map[string]string{"app": a.App}, Ports: ServicePorts(a.N)}
		c, _ := cur.(*Service)
		switch {
		case c == nil:
			return &UserWrite{Verb: VerbCreate, After: s}, nil
		case !slices.Equal(c.Ports, s.Ports) || !maps.Equal(c.Selector, s.Selector):
			n := c.shallow().(*Service)
			n.Selector, n.Ports = s.Selector, s.Ports
			return &UserWrite{Verb: VerbUpdate, Before: c, After: n}, nil
		}
		return nil, nil
	case OpCreatePod:
		labels := map[string]string{"app": target.Name}
		return &UserWrite{Verb: VerbCreate, After: &Pod{Meta: Meta{Name: target.Name, Namespace: target.Namespace, Labels: labels}, Image: a.Image, CPU: DefaultPodCPU, Memory: DefaultPodMemory, Phase: PhasePending}}, nil
	case OpDelete:
		if cur == nil {
			return nil, ErrNotFound
		}
		return &UserWrite{Verb: VerbDelete, Before: cur, Policy: max(a.Policy, PropagateBackground)}, nil
	case OpAddFinalizer, OpRemoveFinalizer:
		if cur == nil {
			return nil, ErrNotFound
		}
		m := cur.meta()
		if m.HasFinalizer(UserFinalizer) == (a.Op == OpAddFinalizer) {
			return nil, nil
		}
		n := cur.shallow()
		fs := withoutFinalizer(m.Finalizers, UserFinalizer)
		if a.Op == OpAddFinalizer {
			fs = append(append([]string(nil), m.Finalizers...), UserFinalizer)
		}
		n.meta().Finalizers = fs
		return &UserWrite{Verb: VerbUpdate, Before: cur, After: n}, nil
	}
	return nil, nil
}

func deploymentIntent(a Action, target Ref, cur *Deployment) (*UserWrite, error) {
	if cur == nil {
		if a.Op != OpApply {
			return nil, ErrNotFound
		}
		labels := map[string]string{"app": target.Name}
		d := &Deployment{
			Meta:           Meta{Name: target.Name, Namespace: target.Namespace, Labels: labels},
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
		return &UserWrite{Verb: VerbCreate, After: d}, nil
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
		return nil, nil // nothing changed: no write, as with a no-op apply
	}
	d.Generation++
	return &UserWrite{Verb: VerbUpdate, Before: cur, After: d}, nil
}

// The well-known labels a kubelet puts on the Node it registers, which
// nodeSelectors (kubebuilder's manager, most charts) select on.
const (
	LabelHostname = "kubernetes.io/hostname"
	LabelOS       = "kubernetes.io/os"
	LabelArch     = "kubernetes.io/arch"
	LabelOSBeta   = "beta.kubernetes.io/os"
	LabelArchBeta = "beta.kubernetes.io/arch"
	NodeOS        = "linux"
	NodeArch      = "amd64" // every machine the same, so nodes do not depend on the host
)

// NodeLabels are a fresh Node's labels, as a kubelet sets them: its
// hostname, its OS and architecture (and their deprecated beta keys).
func NodeLabels(name string) map[string]string {
	return map[string]string{LabelHostname: name, LabelOS: NodeOS, LabelArch: NodeArch,
		LabelOSBeta: NodeOS, LabelArchBeta: NodeArch}
}

// ServicePorts are the ports apply-service gives a Service: one unnamed
// TCP port that targets the same number (none for 0).
func ServicePorts(port int) []ServicePort {
	if port == 0 {
		return nil
	}
	return []ServicePort{{Protocol: "TCP", Port: port, TargetPort: port}}
}

// NewNode is the Node object a kubelet registers for a fresh machine with
// pod range index, at logical time now.
func NewNode(name string, index int, now int64) *Node {
	return &Node{
		Meta:         Meta{Name: name, Labels: NodeLabels(name)},
		Index:        index,
		CPU:          DefaultNodeCPU,
		Memory:       DefaultNodeMemory,
		MaxPods:      DefaultMaxPods,
		Ready:        true,
		Heartbeat:    now,
		TransitionAt: now,
	}
}

// Heartbeat is the Node status a kubelet reports at logical time now.
func Heartbeat(n *Node, now int64) *Node {
	nn := n.shallow().(*Node)
	nn.Heartbeat = now
	if !n.Ready {
		nn.Ready, nn.TransitionAt = true, now
	}
	return nn
}

// user applies a user action.
func (st *State) user(a Action) Result {
	t := &tx{st: st, actor: "user", limit: -1}
	var err error
	switch a.Op {
	case OpAddNode:
		err = st.addNode(t, a.Who)
	case OpRemoveNode:
		cur := st.store.get(Ref{Kind: KindNode, Name: a.Who})
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
	default:
		var w *UserWrite
		if w, err = UserIntent(a, st.store.get(a.Target())); w != nil {
			switch w.Verb {
			case VerbCreate:
				t.Create(w.After)
			case VerbUpdate:
				t.updateAnyVersion(VerbUpdate, w.After)
			case VerbDelete:
				t.DeleteWith(w.Before, w.Policy)
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

func (st *State) addNode(t *tx, name string) error {
	if st.store.get(Ref{Kind: KindNode, Name: name}) != nil {
		return ErrAlreadyExists
	}
	n := NewNode(name, st.store.nodes, st.now)
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
