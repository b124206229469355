package project

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/model"
)

func nodeToModel(n *api.Node, m model.Meta) (*model.Node, error) {
	index, err := nodeIndex(n.Spec.PodCIDR)
	if err != nil {
		return nil, err
	}
	cpu, mem, pods := capacityOf(n.Status.Capacity)
	taints := taintsOf(n.Spec.Taints)
	if n.Spec.Unschedulable && !slices.Contains(taints, unschedulableTaint) {
		// First, so that taints a controller appends keep their place.
		taints = append([]string{unschedulableTaint}, taints...)
	}
	o := &model.Node{Meta: m, Index: index, CPU: cpu, Memory: mem, MaxPods: pods, Taints: taints}
	o.Ready, o.Heartbeat, o.TransitionAt = nodeReady(&n.Status)
	return o, nil
}

func newNode(o *model.Node) *api.Node {
	n := &api.Node{TypeMeta: typeMeta(model.KindNode), ObjectMeta: objectMeta(model.KindNode, &o.Meta, nil)}
	// What a kubelet registers with besides what the model carries: its
	// address (the first one of its pod range, which pods never take) and
	// its version, for kubectl get nodes -o wide and describe.
	n.Status.Addresses = []api.NodeAddress{{Type: "InternalIP", Address: model.NodeIP(o.Index)}, {Type: "Hostname", Address: o.Name}}
	n.Status.NodeInfo = api.NodeSystemInfo{KubeletVersion: api.Version, KubeProxyVersion: api.Version, OperatingSystem: "linux"}
	applyNode(n, o)
	return n
}

// unschedulableTaint is how a cordoned node (spec.unschedulable, kubectl
// cordon and drain) appears to the model: a NoSchedule taint, which
// upstream's node lifecycle controller adds too. ToModel derives it from
// the flag, and Apply does not write it back, so uncordoning lifts it.
const unschedulableTaint = "node.kubernetes.io/unschedulable:NoSchedule"

// applyNode writes the pod range, taints, capacity and the Ready condition.
// Allocatable is left alone: the apiserver defaults it to capacity.
func applyNode(n *api.Node, o *model.Node) {
	if i, err := nodeIndex(n.Spec.PodCIDR); err != nil || i != o.Index {
		cidr := podCIDR(o.Index)
		n.Spec.PodCIDR, n.Spec.PodCIDRs = cidr, []string{cidr}
	}
	want := o.Taints
	if n.Spec.Unschedulable && !slices.Contains(taintsOf(n.Spec.Taints), unschedulableTaint) {
		want = slices.DeleteFunc(slices.Clone(want), func(t string) bool { return t == unschedulableTaint })
	}
	applyTaints(&n.Spec, want)
	c := n.Status.Capacity
	cpu, mem, pods := capacityOf(c)
	if cpu != o.CPU || mem != o.Memory || pods != o.MaxPods {
		if c == nil {
			c = api.ResourceList{}
			n.Status.Capacity = c
		}
		if cpu != o.CPU {
			c[corev1.ResourceCPU] = milliQuantity(o.CPU)
		}
		if mem != o.Memory {
			c[corev1.ResourceMemory] = mibQuantity(o.Memory)
		}
		if pods != o.MaxPods {
			c[corev1.ResourcePods] = *resource.NewQuantity(int64(o.MaxPods), resource.DecimalSI)
		}
	}
	if r, hb, at := nodeReady(&n.Status); r != o.Ready || hb != o.Heartbeat || at != o.TransitionAt {
		setNodeReady(&n.Status, o)
	}
}

// podCIDR is node number index's pod range, as model.PodIP lays them out.
func podCIDR(index int) string { return model.PodIP(index, 0) + "/24" }

// nodeIndex inverts podCIDR.
func nodeIndex(cidr string) (int, error) {
	bad := fmt.Errorf("%w: podCIDR %q is not a model pod range", ErrUnsupported, cidr)
	addr, ok := strings.CutSuffix(cidr, "/24")
	if !ok {
		return 0, bad
	}
	parts := strings.Split(addr, ".")
	if len(parts) != 4 || parts[0] != "127" || parts[3] != "0" {
		return 0, bad
	}
	hi, err1 := strconv.Atoi(parts[1])
	lo, err2 := strconv.Atoi(parts[2])
	if err1 != nil || err2 != nil || hi < 100 || hi > 255 || lo < 0 || lo >= 250 {
		return 0, bad
	}
	i := (hi-100)*250 + lo
	if podCIDR(i) != cidr { // rejects "0100" and other spellings
		return 0, bad
	}
	return i, nil
}

// capacityOf is cpu in millicores, memory in MiB (rounded down: a node
// cannot promise a partial MiB) and pods; 0 when absent.
func capacityOf(c api.ResourceList) (cpu, mem, pods int) {
	if q, ok := c[corev1.ResourceCPU]; ok {
		cpu = int(q.MilliValue())
	}
	if q, ok := c[corev1.ResourceMemory]; ok {
		mem = int(q.Value() / mebibyte)
	}
	if q, ok := c[corev1.ResourcePods]; ok {
		pods = int(q.Value())
	}
	return cpu, mem, pods
}

// taintString is the model's spelling of a taint: "key:Effect".
func taintString(t api.Taint) string { return t.Key + ":" + string(t.Effect) }

func taintsOf(ts []api.Taint) []string {
	var out []string
	for _, t := range ts {
		out = append(out, taintString(t))
	}
	return out
}

// applyTaints rewrites the taints in the model's order, keeping the value
// and timeAdded of a taint that stays.
func applyTaints(s *api.NodeSpec, want []string) {
	if slices.Equal(taintsOf(s.Taints), want) {
		return
	}
	var out []api.Taint
	for _, w := range want {
		i := slices.IndexFunc(s.Taints, func(t api.Taint) bool { return taintString(t) == w })
		if i >= 0 {
			out = append(out, s.Taints[i])
			continue
		}
		t := api.Taint{Key: w}
		if j := strings.LastIndexByte(w, ':'); j >= 0 {
			t.Key, t.Effect = w[:j], api.TaintEffect(w[j+1:])
		}
		out = append(out, t)
	}
	s.Taints = out
}

// nodeReady reads the Ready condition; the logical times are its Unix
// seconds, 0 when unset.
func nodeReady(s *api.NodeStatus) (ready bool, heartbeat, transition int64) {
	for _, c := range s.Conditions {
		if c.Type == api.NodeReady {
			return c.Status == api.ConditionTrue, logical(c.LastHeartbeatTime), logical(c.LastTransitionTime)
		}
	}
	return false, 0, 0
}

func logical(t api.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.Unix()
}

// setNodeReady writes the Ready condition. A node that stops being ready
// goes Unknown, as the node lifecycle controller marks a silent node;
// reason and message change only with the status.
func setNodeReady(s *api.NodeStatus, o *model.Node) {
	i := slices.IndexFunc(s.Conditions, func(c api.NodeCondition) bool { return c.Type == api.NodeReady })
	if i < 0 {
		s.Conditions = append(s.Conditions, api.NodeCondition{Type: api.NodeReady})
		i = len(s.Conditions) - 1
	}
	c := &s.Conditions[i]
	switch {
	case o.Ready && c.Status != api.ConditionTrue:
		c.Status, c.Reason, c.Message = api.ConditionTrue, "KubeletReady", "kubelet is posting ready status"
	case !o.Ready && (c.Status == api.ConditionTrue || c.Status == ""):
		c.Status, c.Reason, c.Message = api.ConditionUnknown, "NodeStatusUnknown", "Kubelet stopped posting node status."
	}
	c.LastHeartbeatTime = api.Unix(o.Heartbeat)
	c.LastTransitionTime = api.Unix(o.TransitionAt)
}
