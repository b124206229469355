package cluster

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/impl/container"
	"github.com/converge-dev/converge/impl/project"
	"github.com/converge-dev/converge/model"
)

// What a kubelet does on a real runtime (running mode, a runtime that is
// not the in-memory fake) beyond the model's decisions. The model's kubelet
// is instantaneous: it restarts a crashed container at once, marks a pod
// ready on its second sync and kills at once. Real processes need time, so
// here the writer holds some of those decisions back, and requeues the pod
// instead. The stepped driver and the fakes never take these paths, which
// keeps the lockstep property exact.
const (
	// restartBackoffBase doubles per restart up to restartBackoffMax
	// (Kubernetes uses 10s and 5m; converge's workloads start in
	// milliseconds, so it backs off sooner and less).
	restartBackoffBase = 500 * time.Millisecond
	restartBackoffMax  = 10 * time.Second
	// probePeriod is how soon a pod whose readiness probe failed is
	// probed again.
	probePeriod    = 200 * time.Millisecond
	probeTimeout   = time.Second
	pullRetryAfter = 2 * time.Second
)

// real reports whether this writer's component runs a node with a real
// runtime in running mode.
func (w *writer) real() bool {
	if w.c.env.stepped || w.c.node == "" {
		return false
	}
	_, fake := w.c.env.nodes.runtimeOf(w.c.node).(*container.Fake)
	return !fake
}

// pod is the API object of a pod (by its key), from the component's pod
// cache.
func (w *writer) pod(key string) *api.Pod {
	inf := w.c.inf[model.KindPod]
	if inf == nil {
		return nil
	}
	o, ok := inf.Cache().Get(model.SplitKey(key))
	if !ok {
		return nil
	}
	p, _ := o.(*api.Pod)
	return p
}

// firstContainer is the container the model's single container stands for.
func firstContainer(p *api.Pod) *api.Container {
	if p == nil || len(p.Spec.Containers) == 0 {
		return nil
	}
	return &p.Spec.Containers[0]
}

// containerSpec is what the runtime is asked to run for c: the identity
// from the model, and the process (command, args, env, ports) from the pod.
func (n *nodes) containerSpec(c model.Container, p *api.Pod) container.ContainerSpec {
	ns, name := model.SplitKey(c.Pod)
	spec := container.ContainerSpec{
		ID: runtimeID(c.ID), Node: c.Node, PodNamespace: ns, PodName: name,
		PodUID: n.uids.String(c.PodUID), Name: "app", Image: c.Image, Attempt: c.Attempt, PodIP: c.IP,
	}
	if ct := firstContainer(p); ct != nil {
		spec.Command = append([]string(nil), ct.Command...)
		spec.Args = append([]string(nil), ct.Args...)
		for _, e := range ct.Env {
			spec.Env = append(spec.Env, container.EnvVar{Name: e.Name, Value: e.Value})
		}
		for _, port := range ct.Ports {
			spec.Ports = append(spec.Ports, int(port.ContainerPort))
		}
	}
	return spec
}

// holdRestart delays a restart after a crash: attempt k waits
// base*2^(k-1) (capped) after the previous attempt exited. It requeues the
// pod and reports true while the wait is not over.
func (w *writer) holdRestart(c model.Container) bool {
	if c.Attempt == 0 || !w.real() {
		return false
	}
	rt := w.c.env.nodes.runtimeOf(c.Node)
	if rt == nil {
		return false
	}
	cs, err := rt.List(w.ctx)
	if err != nil {
		return false
	}
	for _, old := range cs {
		if model.Key(old.PodNamespace, old.PodName) != c.Pod || old.Attempt != c.Attempt-1 || old.State != container.StateExited {
			continue
		}
		wait := restartBackoffBase << min(c.Attempt-1, 5)
		wait = min(wait, restartBackoffMax)
		if left := time.Until(old.FinishedAt.Add(wait)); left > 0 {
			w.c.queue.AddAfter(c.Pod, left)
			w.notReadyWhileBackingOff(c)
			return true
		}
	}
	return false
}

// notReadyWhileBackingOff takes a pod whose process died out of service
// until its restart: not ready, its container waiting in CrashLoopBackOff,
// as the kubelet reports it. The endpoints controller then drops it.
func (w *writer) notReadyWhileBackingOff(c model.Container) {
	p := w.pod(c.Pod)
	if p == nil || w.c.env.uids.String(c.PodUID) != string(p.UID) {
		return
	}
	o, err := project.ToModel(p, w.c.env.uids)
	mp, ok := o.(*model.Pod)
	if err != nil || !ok || !mp.Ready {
		return
	}
	mp.Ready = false
	np, err := project.Apply(p, mp, w.c.env.uids)
	if err != nil {
		return
	}
	pod := np.(*api.Pod)
	if ct := firstContainer(pod); ct != nil {
		for i := range pod.Status.ContainerStatuses {
			if cs := &pod.Status.ContainerStatuses[i]; cs.Name == ct.Name {
				cs.Ready = false
				cs.State = api.ContainerState{Waiting: &api.ContainerStateWaiting{Reason: reasonCrashLoopBackOff}}
			}
		}
	}
	// A lost race (a newer pod) is fine: the model's next sync decides again.
	_, _ = w.c.env.client.UpdateStatus(w.ctx, pod)
}

// reasonCrashLoopBackOff is the waiting reason of a container held back
// after a crash, as Kubernetes names it.
const reasonCrashLoopBackOff = "CrashLoopBackOff"

// stopGrace is how long a container of a terminating pod gets between
// SIGTERM and SIGKILL: the pod's deletion grace period. Orphans, and every
// container in stepped mode, are killed at once.
func (w *writer) stopGrace(c model.Container) time.Duration {
	if !w.real() {
		return 0
	}
	p := w.pod(c.Pod)
	if p == nil || p.DeletionTimestamp == nil || w.c.env.uids.String(c.PodUID) != string(p.UID) {
		return 0
	}
	secs := int64(api.DefaultTerminationGracePeriodSeconds)
	switch {
	case p.DeletionGracePeriodSeconds != nil:
		secs = *p.DeletionGracePeriodSeconds
	case p.Spec.TerminationGracePeriodSeconds != nil:
		secs = *p.Spec.TerminationGracePeriodSeconds
	}
	return time.Duration(secs) * time.Second
}

// gateReady holds back a kubelet's "ready" until the pod's HTTP readiness
// probe passes. It returns the status to write, or false when nothing is
// left to write (the pod is requeued to probe again).
func (w *writer) gateReady(verb model.Verb, before, after model.Obj) (model.Obj, bool) {
	np, ok := after.(*model.Pod)
	op, _ := before.(*model.Pod)
	if !ok || op == nil || verb != model.VerbStatus || !np.Ready || op.Ready || !w.real() {
		return after, true
	}
	if w.probe(w.pod(np.Name), np.PodIP) {
		return after, true
	}
	w.c.queue.AddAfter(np.Name, probePeriod)
	held := *np
	held.Ready = false
	if held.Phase == op.Phase && held.Restarts == op.Restarts && held.PodIP == op.PodIP {
		return nil, false
	}
	return &held, true
}

// probe runs the readiness probe of the pod's container against ip. A
// container without an HTTP GET probe is ready once running, as the model
// has it.
func (w *writer) probe(p *api.Pod, ip string) bool {
	ct := firstContainer(p)
	if ct == nil || ct.ReadinessProbe == nil || ct.ReadinessProbe.HTTPGet == nil {
		return true
	}
	get := ct.ReadinessProbe.HTTPGet
	port := probePort(ct, get.Port)
	if port == 0 || ip == "" {
		return false
	}
	host := ip
	if get.Host != "" {
		host = get.Host
	}
	path := get.Path
	if path == "" || path[0] != '/' {
		path = "/" + path
	}
	ctx, cancel := context.WithTimeout(w.ctx, probeTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+net.JoinHostPort(host, strconv.Itoa(port))+path, nil)
	if err != nil {
		return false
	}
	for _, h := range get.HTTPHeaders {
		req.Header.Set(h.Name, h.Value)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode >= 200 && resp.StatusCode < 400
}

// probePort resolves a probe's port, a number or a container port's name.
func probePort(ct *api.Container, port api.IntOrString) int {
	if port.Type == api.IntValue {
		return int(port.IntVal)
	}
	if n, err := strconv.Atoi(port.StrVal); err == nil {
		return n
	}
	for _, p := range ct.Ports {
		if p.Name == port.StrVal {
			return int(p.ContainerPort)
		}
	}
	return 0
}

// noteImagePull reports a missing image as the pod's waiting reason:
// ErrImagePull the first time, ImagePullBackOff after, as the kubelet does.
// It writes only when the reason changes, so the retries do not churn.
func (w *writer) noteImagePull(c model.Container, err error) {
	if !errors.Is(err, container.ErrImageNotPresent) || !w.real() {
		return
	}
	w.c.queue.AddAfter(c.Pod, pullRetryAfter)
	p := w.pod(c.Pod)
	ct := firstContainer(p)
	if ct == nil {
		return
	}
	reason := container.ReasonErrImagePull
	var cs *api.ContainerStatus
	for i := range p.Status.ContainerStatuses {
		if p.Status.ContainerStatuses[i].Name == ct.Name {
			cs = &p.Status.ContainerStatuses[i]
		}
	}
	if rec := w.c.env.events; rec != nil { // every attempt; repeats are folded
		ref := referenceTo(p)
		rec.emit(ref, api.EventTypeWarning, "Failed", fmt.Sprintf("Failed to pull image %q: %v", ct.Image, err), "kubelet", c.Node)
		if cs != nil && cs.State.Waiting != nil {
			rec.emit(ref, api.EventTypeNormal, "BackOff", fmt.Sprintf("Back-off pulling image %q", ct.Image), "kubelet", c.Node)
		}
	}
	if cs != nil && cs.State.Waiting != nil {
		if cs.State.Waiting.Reason == container.ReasonImagePullBackOff {
			return
		}
		reason = container.ReasonImagePullBackOff
	}
	np := api.DeepCopy(p)
	st := api.ContainerStatus{Name: ct.Name, Image: ct.Image,
		State: api.ContainerState{Waiting: &api.ContainerStateWaiting{Reason: reason, Message: err.Error()}}}
	if cs != nil {
		st.RestartCount = cs.RestartCount
	}
	np.Status.ContainerStatuses = []api.ContainerStatus{st}
	// A lost race (a newer pod) is fine: the requeue comes back here.
	_, _ = w.c.env.client.UpdateStatus(w.ctx, np)
}

// errIPInUse fails a start whose pod IP another pod of the node holds.
var errIPInUse = errors.New("cluster: pod IP in use by another pod on the node")

// claimIP is the node's address bookkeeping, as an IPAM plugin keeps it.
// The model's kubelet picks the lowest address no pod in its view holds;
// its view lags its own status writes, so two pods started back to back
// can pick the same one, and on a real host the second could not bind it.
// A start whose address another pod holds fails and is retried once the
// view has caught up (with real runtimes only: the model's containers bind
// nothing).
func (w *writer) claimIP(c model.Container) error {
	if c.IP == "" || !w.real() {
		return nil
	}
	n := w.c.env.nodes
	n.mu.Lock()
	defer n.mu.Unlock()
	held := n.ips[c.Node]
	if held == nil {
		held = map[string]string{}
		n.ips[c.Node] = held
	}
	if pod, ok := held[c.IP]; ok && pod != c.Pod {
		// Still held only if that pod is still in the cache and on the IP.
		if p := w.pod(pod); p != nil && (p.Status.PodIP == "" || p.Status.PodIP == c.IP) {
			return fmt.Errorf("%w: %s has %s", errIPInUse, pod, c.IP)
		}
	}
	held[c.IP] = c.Pod
	return nil
}

// releaseIP forgets the address of a pod whose container was stopped for
// good (the pod is gone or terminating).
func (w *writer) releaseIP(c model.Container) {
	n := w.c.env.nodes
	n.mu.Lock()
	defer n.mu.Unlock()
	for ip, pod := range n.ips[c.Node] {
		if pod == c.Pod {
			delete(n.ips[c.Node], ip)
		}
	}
}
