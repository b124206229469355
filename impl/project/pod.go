package project

import (
	"net/netip"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/model"
)

const mebibyte = 1 << 20

func podToModel(p *api.Pod, m model.Meta) (*model.Pod, error) {
	cpu, mem := requestsOf(&p.Spec)
	o := &model.Pod{
		Meta:         m,
		Image:        imageOf(&p.Spec),
		NodeSelector: cloneMap(p.Spec.NodeSelector),
		CPU:          cpu,
		Memory:       mem,
		NodeName:     p.Spec.NodeName,
		Phase:        phaseOf(p.Status.Phase),
		Ready:        podReady(&p.Status),
		PodIP:        p.Status.PodIP,
		Gated:        len(p.Spec.SchedulingGates) > 0,
		Ports:        namedPortsOf(&p.Spec),
		Claims:       claimsOf(p),
	}
	if cs := containerStatusOf(p); cs != nil {
		o.Restarts = int(cs.RestartCount)
		o.Waiting, o.LastReason, o.LastExitCode = waitingOf(cs)
	}
	return o, nil
}

// newPod stamps a Pod from the pod template of its ReplicaSet (or
// Deployment), keeping what the model does not carry: container names,
// ports, env, probes, limits, template annotations. Requests are always
// written, from the model (its decisions assume them).
func newPod(o *model.Pod, template api.Object) (*api.Pod, error) {
	t, err := podTemplateOf(template, o.Image)
	if err != nil {
		return nil, err
	}
	p := &api.Pod{
		TypeMeta:   typeMeta(model.KindPod),
		ObjectMeta: objectMeta(model.KindPod, &o.Meta, template),
		Spec:       t.Spec,
	}
	p.Annotations = t.Annotations
	c := firstContainer(&p.Spec, o.Image)
	c.Resources.Requests = c.Resources.Requests.DeepCopy()
	if c.Resources.Requests == nil {
		c.Resources.Requests = api.ResourceList{}
	}
	c.Resources.Requests[corev1.ResourceCPU] = milliQuantity(o.CPU)
	c.Resources.Requests[corev1.ResourceMemory] = mibQuantity(o.Memory)
	if template == nil && len(o.Ports) > 0 {
		// A bare pod the model names ports for: its one container
		// serves them. (A template's pods have the template's.)
		c.Ports = nil
		for _, cp := range o.Ports {
			c.Ports = append(c.Ports, api.ContainerPort{Name: cp.Name, Protocol: corev1.Protocol(cp.Protocol), ContainerPort: i32(cp.Port)})
		}
	}
	if s, ok := template.(*api.StatefulSet); ok && s != nil {
		stampStatefulPod(p, o, s)
	}
	applyPod(p, o)
	return p, nil
}

// namedPortsOf are the containers' named ports, in container order: what
// a Service's named targetPort resolves to (upstream's FindPort reads
// spec.containers).
func namedPortsOf(s *api.PodSpec) []model.ContainerPort {
	var out []model.ContainerPort
	for _, c := range s.Containers {
		for _, p := range c.Ports {
			if p.Name != "" {
				out = append(out, model.ContainerPort{Name: p.Name, Protocol: string(p.Protocol), Port: int(p.ContainerPort)})
			}
		}
	}
	return out
}

// applyPod writes the spec fields the model carries and the status a
// kubelet reports: phase, the Ready and ContainersReady conditions,
// podIP/podIPs (with hostIP, derived from podIP, when it has none yet) and
// the first container's status.
func applyPod(p *api.Pod, o *model.Pod) {
	setImage(&p.Spec, o.Image)
	if !sameMap(p.Spec.NodeSelector, o.NodeSelector) {
		p.Spec.NodeSelector = cloneMap(o.NodeSelector)
	}
	cpu, mem := requestsOf(&p.Spec)
	if cpu != o.CPU {
		setRequest(&p.Spec, o.Image, corev1.ResourceCPU, milliQuantity(o.CPU))
	}
	if mem != o.Memory {
		setRequest(&p.Spec, o.Image, corev1.ResourceMemory, mibQuantity(o.Memory))
	}
	if p.Spec.NodeName != o.NodeName {
		p.Spec.NodeName = o.NodeName
	}
	if phaseOf(p.Status.Phase) != phaseOf(api.PodPhase(o.Phase)) {
		p.Status.Phase = api.PodPhase(o.Phase)
	}
	if podReady(&p.Status) != o.Ready {
		setPodCondition(&p.Status, api.PodReady, o.Ready)
		setPodCondition(&p.Status, api.ContainersReady, o.Ready)
		if !o.Ready && o.Phase == model.PhaseRunning {
			explainNotReady(p, o)
		}
	}
	if p.Status.PodIP != o.PodIP {
		p.Status.PodIP = o.PodIP
		p.Status.PodIPs = nil
		if o.PodIP != "" {
			p.Status.PodIPs = []api.PodIP{{IP: o.PodIP}}
			if host := hostIPOf(o.PodIP); host != "" && p.Status.HostIP == "" {
				p.Status.HostIP, p.Status.HostIPs = host, []api.HostIP{{IP: host}}
			}
		}
	}
	applyContainerStatus(p, o)
}

// applyContainerStatus keeps the first container's status in line with the
// model: ready, restart count, and running once the pod runs. A pod that
// has not started gets no status entry.
func applyContainerStatus(p *api.Pod, o *model.Pod) {
	cs := containerStatusOf(p)
	running := o.Phase == model.PhaseRunning
	if cs == nil {
		if !running && !o.Ready && o.Restarts == 0 && o.Waiting == "" {
			return
		}
		p.Status.ContainerStatuses = append(p.Status.ContainerStatuses,
			api.ContainerStatus{Name: firstContainer(&p.Spec, o.Image).Name, Image: o.Image})
		cs = &p.Status.ContainerStatuses[len(p.Status.ContainerStatuses)-1]
	}
	if cs.Ready != o.Ready {
		cs.Ready = o.Ready
	}
	if int(cs.RestartCount) != o.Restarts {
		cs.RestartCount = i32(o.Restarts)
		cs.Image = o.Image
	}
	applyWaiting(p, cs, o)
	if running && o.Waiting == "" && cs.State.Running == nil {
		cs.State = api.ContainerState{Running: &api.ContainerStateRunning{}}
	}
	if running && o.Waiting == "" && (cs.Started == nil || !*cs.Started) {
		cs.Started = ptr(true)
	}
}

// containerStatusOf is the status of the first container: by name, or the
// first entry when no name matches.
func containerStatusOf(p *api.Pod) *api.ContainerStatus {
	st := p.Status.ContainerStatuses
	if len(st) == 0 {
		return nil
	}
	if len(p.Spec.Containers) > 0 {
		for i := range st {
			if st[i].Name == p.Spec.Containers[0].Name {
				return &st[i]
			}
		}
	}
	return &st[0]
}

// phaseOf is the model's phase: Pending when the kubelet has not said.
func phaseOf(p api.PodPhase) string {
	if p == "" {
		return model.PhasePending
	}
	return string(p)
}

func podReady(s *api.PodStatus) bool {
	for _, c := range s.Conditions {
		if c.Type == api.PodReady {
			return c.Status == api.ConditionTrue
		}
	}
	return false
}

// setPodCondition sets a condition's status. The transition time is not
// known without a clock, so a changed condition carries none rather than a
// stale one.
func setPodCondition(s *api.PodStatus, typ corev1.PodConditionType, ok bool) {
	status := api.ConditionFalse
	if ok {
		status = api.ConditionTrue
	}
	for i := range s.Conditions {
		if c := &s.Conditions[i]; c.Type == typ {
			if c.Status != status {
				c.Status, c.LastTransitionTime, c.Reason, c.Message = status, api.Time{}, "", ""
			}
			return
		}
	}
	s.Conditions = append(s.Conditions, api.PodCondition{Type: typ, Status: status})
}

// requestsOf is the first container's cpu (millicores) and memory (MiB,
// rounded up) requests, with the model's defaults when absent.
func requestsOf(s *api.PodSpec) (cpu, mem int) {
	cpu, mem = model.DefaultPodCPU, model.DefaultPodMemory
	if len(s.Containers) == 0 {
		return cpu, mem
	}
	req := s.Containers[0].Resources.Requests
	if q, ok := req[corev1.ResourceCPU]; ok {
		cpu = int(q.MilliValue())
	}
	if q, ok := req[corev1.ResourceMemory]; ok {
		mem = int((q.Value() + mebibyte - 1) / mebibyte)
	}
	return cpu, mem
}

func setRequest(s *api.PodSpec, image string, name corev1.ResourceName, q api.Quantity) {
	c := firstContainer(s, image)
	if c.Resources.Requests == nil {
		c.Resources.Requests = api.ResourceList{}
	}
	c.Resources.Requests[name] = q
}

// milliQuantity is m millicores ("100m"; whole cores print as "4").
func milliQuantity(m int) api.Quantity {
	return *resource.NewMilliQuantity(int64(m), resource.DecimalSI)
}

// mibQuantity is n MiB ("128Mi").
func mibQuantity(n int) api.Quantity {
	return *resource.NewQuantity(int64(n)*mebibyte, resource.BinarySI)
}

// hostIPOf is the address of the node whose pod range holds podIP
// (model.NodeIP), or "" for an address outside the model's layout.
func hostIPOf(podIP string) string {
	a, err := netip.ParseAddr(podIP)
	if err != nil || !a.Is4() || a.As4()[0] != 127 {
		return ""
	}
	b := a.As4()
	b[3] = 1
	return netip.AddrFrom4(b).String()
}
