package model

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Snapshot is the observable state of a cluster: stored objects, every
// node's containers and proxy rules, and the clock. The implementation
// projects itself into the same type (ARCHITECTURE.md, contract 3:
// projection), so lockstep is Equal(model.Snapshot(), Project(impl)).
type Snapshot struct {
	Now        int64
	Objects    map[Ref]Obj
	Containers []Container                // sorted by ID
	Rules      map[string]map[string]Rule // node -> Service -> rule
	// FailingImages are the images whose pulls fail (world.go), sorted.
	FailingImages []string
	// CPUFullNodes are the nodes whose spare CPU another tenant holds
	// (world_cpu.go), sorted.
	CPUFullNodes []string
}

// Snapshot captures the observable state. It shares the (immutable) objects.
func (st *State) Snapshot() *Snapshot {
	s := &Snapshot{Now: st.now, Objects: make(map[Ref]Obj, len(st.store.objs)), Containers: st.Containers(""), Rules: map[string]map[string]Rule{},
		FailingImages: st.FailingImages(), CPUFullNodes: st.CPUFullNodes()}
	for r, o := range st.store.objs {
		s.Objects[r] = o
	}
	for n, rt := range st.runtime {
		rules := make(map[string]Rule, len(rt.rules))
		for k, v := range rt.rules {
			rules[k] = v
		}
		s.Rules[n] = rules
	}
	return s
}

// List returns the objects of one kind in name order.
func (s *Snapshot) List(k Kind) []Obj {
	var out []Obj
	for r, o := range s.Objects {
		if r.Kind == k {
			out = append(out, o)
		}
	}
	SortObjects(out)
	return out
}

// lists is List of each of kinds, in one pass over the objects: the
// invariants list five kinds of every snapshot.
func (s *Snapshot) lists(kinds ...Kind) map[Kind][]Obj {
	out := make(map[Kind][]Obj, len(kinds))
	for _, k := range kinds {
		out[k] = nil
	}
	for r, o := range s.Objects {
		if objs, ok := out[r.Kind]; ok {
			out[r.Kind] = append(objs, o)
		}
	}
	for _, objs := range out {
		SortObjects(objs)
	}
	return out
}

// Field is one observable field of an object, rendered for comparison.
type Field struct{ Name, Value string }

// ownerField renders an owner reference without its UID, which is masked:
// it says whether the reference still points at the live owner.
func (s *Snapshot) ownerField(m *Meta) string {
	ow := m.Owner
	if ow.UID == 0 {
		return ""
	}
	v := ow.Kind.Resource() + "/" + ow.Name
	if ow.Type != "" {
		v = ow.Type + "/" + ow.Name
	}
	if cur := s.Objects[OwnerRef(m)]; cur == nil || cur.meta().UID != ow.UID {
		v += " (gone)"
	}
	return v
}

// Fields renders an object's observable fields, masking UIDs and versions.
func (s *Snapshot) Fields(o Obj) []Field { return fields(o, s.ownerField(o.meta())) }

// ownerFieldName is the field ownerField renders; it comes right after the
// labels (LineCache relies on it).
const ownerFieldName = "metadata.ownerReferences"

// fields is Fields with the owner reference given rendered: all but it
// depends on the object alone.
func fields(o Obj, owner string) []Field {
	m := o.meta()
	var f []Field
	add := func(name string, v any) {
		str := fmt.Sprint(v)
		switch x := v.(type) {
		case map[string]string:
			str = labelString(x)
		case []string:
			str = strings.Join(x, ",")
		}
		if str != "" && str != "0" && str != "false" {
			f = append(f, Field{name, str})
		}
	}
	// always keeps fields whose zero value means something (0 replicas).
	always := func(name string, n int) { f = append(f, Field{name, strconv.Itoa(n)}) }
	add("metadata.labels", m.Labels)
	add(ownerFieldName, owner)
	add("metadata.deletionTimestamp", m.Deleting)
	add("metadata.gracefulDeletion", m.Graceful) // deletionGracePeriodSeconds > 0
	add("metadata.finalizers", m.Finalizers)
	switch x := o.(type) {
	case *Deployment:
		add("metadata.generation", x.Generation)
		add("metadata.revision", x.Revision)
		always("spec.replicas", x.Replicas)
		add("spec.template.image", x.Image)
		add("spec.template.labels", x.PodLabels)
		add("spec.template.nodeSelector", x.NodeSelector)
		add("spec.template.rest", x.Template)
		add("spec.strategy", x.MaxSurge.String()+"/"+x.MaxUnavailable.String())
		add("status.observedGeneration", x.ObservedGeneration)
		add("status.replicas", x.Status.Replicas)
		add("status.updatedReplicas", x.Status.UpdatedReplicas)
		add("status.readyReplicas", x.Status.ReadyReplicas)
		add("status.availableReplicas", x.Status.AvailableReplicas)
	case *ReplicaSet:
		add("metadata.revision", x.Revision)
		always("spec.replicas", x.Replicas)
		add("spec.template.image", x.Image)
		add("spec.template.labels", x.PodLabels)
		add("spec.template.nodeSelector", x.NodeSelector)
		add("spec.template.rest", x.Template)
		add("status.replicas", x.Status.Replicas)
		add("status.readyReplicas", x.Status.ReadyReplicas)
	case *Pod:
		add("spec.image", x.Image)
		add("spec.nodeSelector", x.NodeSelector)
		add("spec.requests", fmt.Sprintf("cpu=%dm,memory=%dMi", x.CPU, x.Memory))
		add("spec.nodeName", x.NodeName)
		add("spec.schedulingGated", x.Gated)
		add("status.phase", x.Phase)
		add("status.ready", x.Ready)
		add("status.podIP", x.PodIP)
		add("status.restartCount", x.Restarts)
		var ps []string
		for _, p := range x.Ports {
			ps = append(ps, p.Name+":"+strconv.Itoa(p.Port)+"/"+p.Protocol)
		}
		add("spec.containers.ports", ps)
		add("status.waiting", x.Waiting)
		if x.LastReason != "" {
			add("status.lastTerminated", x.LastReason+" exit="+strconv.Itoa(x.LastExitCode))
		}
		add("spec.volumes.claims", x.Claims)
	case *Node:
		add("spec.podCIDR", PodIP(x.Index, 0)+"/24")
		add("spec.taints", x.Taints)
		add("status.capacity", fmt.Sprintf("cpu=%dm,memory=%dMi,pods=%d", x.CPU, x.Memory, x.MaxPods))
		add("status.ready", x.Ready)
		add("status.heartbeat", x.Heartbeat)
		add("status.transitionAt", x.TransitionAt)
	case *Service:
		if x.ExternalName {
			add("spec.type", "ExternalName")
		}
		add("spec.selector", x.Selector)
		var ps []string
		for _, p := range x.Ports {
			target := strconv.Itoa(p.TargetPort)
			if p.TargetName != "" {
				target = p.TargetName
			}
			ps = append(ps, portName(p.Name)+strconv.Itoa(p.Port)+"->"+target+"/"+p.Protocol)
		}
		add("spec.ports", ps)
	case *Endpoints:
		var as []string
		for _, a := range x.Addresses {
			as = append(as, a.Pod+"="+a.IP+"@"+a.Node)
		}
		add("subsets.addresses", as)
		add("subsets.ports", endpointPorts(x.Ports))
	case *EndpointSlice:
		var es []string
		for _, e := range x.Endpoints {
			es = append(es, fmt.Sprintf("%s=%s@%s ready=%t serving=%t terminating=%t", e.Pod, e.IP, e.Node, e.Ready, e.Serving, e.Terminating))
		}
		add("endpoints", es)
		add("ports", endpointPorts(x.Ports))
	case *Namespace:
		if x.Finalize {
			add("spec.finalizers", FinalizerKubernetes)
		}
	case *Custom:
		f = append(f, bodyFields(x.Body)...)
	case *StatefulSet:
		f = append(f, statefulSetFields(x)...)
	}
	return f
}

func labelString(m map[string]string) string {
	var parts []string
	for _, k := range sortedKeys(m) {
		parts = append(parts, k+"="+m[k])
	}
	return strings.Join(parts, ",")
}

// ChangedFields names the fields a write changed (all of them for a create
// or a final delete).
func (s *Snapshot) ChangedFields(before, after Obj) []string {
	var a, b []Field
	if before != nil {
		a = s.Fields(before)
	}
	if after != nil {
		b = s.Fields(after)
	}
	vals := map[string]string{}
	for _, x := range a {
		vals[x.Name] = x.Value
	}
	var out []string
	for _, y := range b {
		if v, ok := vals[y.Name]; !ok || v != y.Value {
			out = append(out, y.Name)
		}
		delete(vals, y.Name)
	}
	for n := range vals {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Lines renders the snapshot canonically, one line per object field,
// container and rule. Equal snapshots have equal lines.
func (s *Snapshot) Lines() []string { return (*LineCache)(nil).Lines(s) }

// Digest is a short hash of the canonical lines, for traces.
func (s *Snapshot) Digest() string {
	h := sha256.New()
	for _, l := range s.Lines() {
		h.Write([]byte(l))
		h.Write([]byte{'\n'})
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))[:16]
}

// Diff names every line that differs between two snapshots, labelled with
// the given names ("model", "impl"). Empty means equal.
func Diff(a, b *Snapshot, an, bn string) []string { return (*LineCache)(nil).Diff(a, b, an, bn) }

// portName prefixes a named port's number with its name.
func portName(name string) string {
	if name == "" {
		return ""
	}
	return name + ":"
}

func endpointPorts(ports []EndpointPort) []string {
	var out []string
	for _, p := range ports {
		out = append(out, portName(p.Name)+strconv.Itoa(p.Port)+"/"+p.Protocol)
	}
	return out
}
