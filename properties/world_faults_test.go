package properties

import (
	"context"
	"slices"
	"testing"

	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/impl/client"
	"github.com/converge-dev/converge/impl/registry"
	"github.com/converge-dev/converge/impl/store"
	"github.com/converge-dev/converge/impl/store/storetest"
	"github.com/converge-dev/converge/model"
)

// The world faults in lockstep (model/world.go): the model and the
// implementation over the fake runtime agree step by step, and the
// implementation's pods say it in the kubelet's fields.

// worldRun is a faultRun that also reads the API's pods.
type worldRun struct {
	*faultRun
	api client.Client
}

func newWorldRun(t *testing.T) *worldRun {
	st := storetest.Store(t)
	return &worldRun{faultRun: newFaultRun(t, st), api: apiOf(st)}
}

func apiOf(st *store.Store) client.Client {
	return client.Local(registry.New(registry.Config{Store: st}))
}

// pod reads a pod as the API serves it.
func (w *worldRun) pod(key string) *api.Pod {
	w.t.Helper()
	r := model.RefTo(model.KindPod, key)
	o, err := w.api.Get(context.Background(), "pods", r.Namespace, r.Name)
	if err != nil {
		w.t.Fatal(err)
	}
	return o.(*api.Pod)
}

func condition(p *api.Pod, typ string) api.PodCondition {
	for _, c := range p.Status.Conditions {
		if string(c.Type) == typ {
			return c
		}
	}
	return api.PodCondition{}
}

func TestWorldImagePullFailure(t *testing.T) {
	w := newWorldRun(t)
	w.do("add-node node-1", "apply web replicas=1 image=nginx:1", "image-fails nginx:1")
	w.settle(nil)
	key := model.KeyOf(w.pods()[0])
	p := w.pod(key)
	cs := p.Status.ContainerStatuses
	if len(cs) != 1 || cs[0].State.Waiting == nil || cs[0].State.Waiting.Reason != "ImagePullBackOff" || cs[0].State.Waiting.Message != `Back-off pulling image "nginx:1"` {
		t.Fatalf("container statuses %+v, want one waiting in ImagePullBackOff", cs)
	}
	if p.Status.Phase != "Pending" || condition(p, "Ready").Status == api.ConditionTrue {
		t.Fatalf("pod phase %s, Ready %+v: want Pending and not ready", p.Status.Phase, condition(p, "Ready"))
	}
	if c := w.snapshot().Containers; len(c) != 0 {
		t.Fatalf("containers %+v, want none: the image never pulled", c)
	}
	w.do("image-pulls nginx:1")
	w.settle(nil)
	if p := w.pod(key); condition(p, "Ready").Status != api.ConditionTrue || p.Status.ContainerStatuses[0].State.Running == nil {
		t.Fatalf("after the image pulls: %+v, want running and ready", p.Status)
	}
}

// An image the kubelet cannot parse (upper case in the repository) leaves
// the pod waiting in InvalidImageName for good, with nothing left to do:
// the run settles, and converges with the rollout stuck; a valid image
// runs.
func TestWorldInvalidImageName(t *testing.T) {
	w := newWorldRun(t)
	w.do("add-node node-1", "apply web replicas=1 image=Nginx:1")
	w.settle(nil)
	key := model.KeyOf(w.pods()[0])
	cs := w.pod(key).Status.ContainerStatuses
	want := `Failed to apply default image tag "Nginx:1": couldn't parse image name "Nginx:1": invalid reference format: repository name (library/Nginx) must be lowercase`
	if len(cs) != 1 || cs[0].State.Waiting == nil || cs[0].State.Waiting.Reason != "InvalidImageName" || cs[0].State.Waiting.Message != want {
		t.Fatalf("container statuses %+v, want one waiting in InvalidImageName: %s", cs, want)
	}
	if c := w.snapshot().Containers; len(c) != 0 {
		t.Fatalf("containers %+v, want none: the kubelet cannot name the image", c)
	}
	if err := model.Converged(w.snapshot()); err != nil {
		t.Fatalf("not converged: %v", err)
	}
	w.do("set-image web nginx:1")
	w.settle(nil)
	if err := model.Converged(w.snapshot()); err != nil {
		t.Fatalf("not converged after a valid image: %v", err)
	}
	if p := w.pods(); len(p) != 1 || p[0].Image != "nginx:1" || !p[0].Ready {
		t.Fatalf("pods %+v, want one ready pod of nginx:1", p)
	}
}

func TestWorldCrashLoop(t *testing.T) {
	w := newWorldRun(t)
	w.do("add-node node-1", "apply web replicas=1 image=nginx:1")
	w.settle(nil)
	key := model.KeyOf(w.pods()[0])
	w.do("container-oom node-1 " + key)
	w.settle(nil)
	cs := w.pod(key).Status.ContainerStatuses[0]
	if term := cs.LastTerminationState.Terminated; term == nil || term.Reason != "OOMKilled" || term.ExitCode != 137 || cs.RestartCount != 1 || cs.State.Running == nil {
		t.Fatalf("after an OOM kill: %+v, want running again, restartCount 1, last terminated OOMKilled 137", cs)
	}
	w.do("crash-container node-1 "+key, "reconcile kubelet/node-1 "+key)
	cs = w.pod(key).Status.ContainerStatuses[0]
	if cs.State.Waiting == nil || cs.State.Waiting.Reason != "CrashLoopBackOff" || cs.Ready || cs.LastTerminationState.Terminated.Reason != "Error" {
		t.Fatalf("after a second crash: %+v, want waiting in CrashLoopBackOff, last terminated Error", cs)
	}
	w.settle(nil)
	cs = w.pod(key).Status.ContainerStatuses[0]
	if cs.RestartCount != 2 || !cs.Ready || cs.State.Running == nil {
		t.Fatalf("after the back-off: %+v, want running, ready, restartCount 2", cs)
	}
}

func TestWorldReadinessFlap(t *testing.T) {
	w := newWorldRun(t)
	w.do("add-node node-1", "apply-service web app=web port=80", "apply web replicas=1 image=nginx:1")
	w.settle(nil)
	key := model.KeyOf(w.pods()[0])
	w.do("readiness-fails node-1 " + key)
	w.settle(nil)
	p := w.pod(key)
	for _, typ := range []string{"Ready", "ContainersReady"} {
		if c := condition(p, typ); c.Status != api.ConditionFalse || c.Reason != "ContainersNotReady" || c.Message != "containers with unready status: ["+p.Spec.Containers[0].Name+"]" {
			t.Fatalf("%s %+v, want False, ContainersNotReady", typ, c)
		}
	}
	if p.Status.Phase != "Running" {
		t.Fatalf("phase %s, want Running: the container runs", p.Status.Phase)
	}
	if ep := w.snapshot().Objects[model.RefTo(model.KindEndpoints, "web")].(*model.Endpoints); len(ep.Addresses) != 0 {
		t.Fatalf("endpoints %+v, want the unready pod dropped", ep.Addresses)
	}
	w.do("readiness-passes node-1 " + key)
	w.settle(nil)
	if c := condition(w.pod(key), "Ready"); c.Status != api.ConditionTrue {
		t.Fatalf("Ready %+v after the probe passes, want True", c)
	}
}

// A node another tenant has filled (model/world_cpu.go): the model and the
// implementation agree on the faults offered and step by step; the pod
// whose only node is full stays Pending, unbound, for upstream's reason;
// freeing the node schedules it; a node with a bound pod is not offered
// the fault.
func TestWorldNodeCPUFull(t *testing.T) {
	w := newWorldRun(t)
	agree := func(when string) []model.Action {
		t.Helper()
		m, s := w.p.Model.EnabledWorldFaults(), w.p.Impl.EnabledWorldFaults()
		if !slices.Equal(m, s) {
			t.Fatalf("%s: world faults differ:\n model: %v\n impl:  %v", when, m, s)
		}
		return s
	}
	w.do("add-node node-1")
	w.settle(nil)
	full := model.Action{Op: model.OpNodeCPUFull, Who: "node-1"}
	if !slices.Contains(agree("empty node"), full) {
		t.Fatalf("%s not offered on an empty node", full)
	}
	w.do("node-cpu-full node-1", "create-pod solo image=nginx:1")
	w.settle(nil)
	p := w.pod("solo")
	if p.Spec.NodeName != "" || p.Status.Phase != "Pending" {
		t.Fatalf("pod on %q, phase %s: want unbound and Pending on a full node", p.Spec.NodeName, p.Status.Phase)
	}
	snap := w.snapshot()
	if !slices.Equal(snap.CPUFullNodes, []string{"node-1"}) {
		t.Fatalf("implementation's full nodes %v, want [node-1]", snap.CPUFullNodes)
	}
	mp := snap.Objects[model.RefTo(model.KindPod, "solo")].(*model.Pod)
	// The FailedScheduling event's message (events.go) from the same
	// decision code over the implementation's objects.
	if got, want := model.WhyUnschedulable(mp, snap.List(model.KindNode), snap.List(model.KindPod), w.p.Impl.CPUFullNodes()...), "0/1 nodes are available: 1 Insufficient cpu."; got != want {
		t.Fatalf("WhyUnschedulable = %q, want %q", got, want)
	}
	agree("full node")
	w.do("node-cpu-frees node-1")
	w.settle(nil)
	if p := w.pod("solo"); p.Spec.NodeName != "node-1" || condition(p, "Ready").Status != api.ConditionTrue {
		t.Fatalf("after the node frees: node %q, status %+v; want bound to node-1 and ready", p.Spec.NodeName, p.Status)
	}
	for _, a := range agree("bound pod") {
		if a.Op == model.OpNodeCPUFull {
			t.Fatalf("%s offered on a node with a pod bound", a)
		}
	}
}
