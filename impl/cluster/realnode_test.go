package cluster

import (
	"context"
	corev1 "k8s.io/api/core/v1"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/impl/container"
	"github.com/converge-dev/converge/impl/project"
	"github.com/converge-dev/converge/impl/registry"
	"github.com/converge-dev/converge/impl/store/storetest"
	"github.com/converge-dev/converge/model"
)

// realish is the fake under another type, so the cluster treats it as a
// real runtime (probes, back-off, address bookkeeping) with no containerd.
type realish struct{ *container.Fake }

func TestRealRuntimeGivesUniquePodIPsAndBacksOffRestarts(t *testing.T) {
	host := container.NewFakeHost(time.Now)
	r, err := StartRunning(RunningConfig{Store: storetest.Store(t), Nodes: 1, Tick: 20 * time.Millisecond,
		Runtime: func(node string) container.Runtime { return realish{host.Node(node)} }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	r.WatchRuntimes(20 * time.Millisecond)
	r.mustApply(t, "apply myapp replicas=12 image=nginx:1")
	snap := r.converge(t, model.NewChecker())

	// Twelve pods started back to back on one node: each binds its own IP,
	// the one its status shows.
	podIP := map[string]string{}
	for _, o := range snap.List(model.KindPod) {
		podIP[o.(*model.Pod).Name] = o.(*model.Pod).PodIP
	}
	byIP := map[string]string{}
	var victim container.ContainerStatus
	for _, c := range host.Containers() {
		spec, err := host.Node(c.Node).Spec(c.ID)
		if err != nil {
			t.Fatal(err)
		}
		if other, ok := byIP[spec.PodIP]; ok || spec.PodIP == "" {
			t.Fatalf("pods %s and %s both bind %q", other, c.PodName, spec.PodIP)
		}
		byIP[spec.PodIP] = c.PodName
		if spec.PodIP != podIP[c.PodName] {
			t.Fatalf("pod %s binds %s, its status says %s", c.PodName, spec.PodIP, podIP[c.PodName])
		}
		victim = c
	}
	if len(byIP) != 12 {
		t.Fatalf("%d containers, want 12", len(byIP))
	}

	// A process that dies on its own is noticed and restarted, after the
	// back-off.
	if err := host.Crash(victim.ID, 1); err != nil {
		t.Fatal(err)
	}
	crashed, _ := host.Node(victim.Node).Status(context.Background(), victim.ID)
	deadline := time.Now().Add(30 * time.Second)
	for {
		var next *container.ContainerStatus
		for _, c := range host.Containers() {
			if c.PodName == victim.PodName && c.Attempt == 1 && c.State == container.StateRunning {
				next = &c
			}
		}
		if next != nil {
			if wait := next.StartedAt.Sub(crashed.FinishedAt); wait < restartBackoffBase {
				t.Fatalf("restarted %v after the crash, before the %v back-off", wait, restartBackoffBase)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("pod %s was not restarted: %v", victim.PodName, host.Containers())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestContainerSpecTakesTheProcessFromThePod(t *testing.T) {
	n := newNodes(project.NewUIDs(), nil)
	p := &api.Pod{Spec: api.PodSpec{Containers: []api.Container{{
		Name: "echo", Image: "converge.local/echo:v1", Command: []string{"/echo"}, Args: []string{"-v"},
		Env:   []api.EnvVar{{Name: "GREETING", Value: "hi"}},
		Ports: []api.ContainerPort{{ContainerPort: 8080}, {ContainerPort: 9090}},
	}}}}
	c := model.Container{ID: "node-1/echo-0/2", Node: "node-1", Pod: "echo-0", Image: "converge.local/echo:v1", Attempt: 2, IP: "127.100.0.2"}
	spec := n.containerSpec(c, p)
	if spec.ID != "node-1_echo-0_2" || spec.PodIP != "127.100.0.2" || spec.Attempt != 2 ||
		len(spec.Ports) != 2 || spec.Ports[0] != 8080 || spec.Env[0] != (container.EnvVar{Name: "GREETING", Value: "hi"}) ||
		spec.Command[0] != "/echo" || spec.Args[0] != "-v" {
		t.Fatalf("spec %+v", spec)
	}
	if _, err := spec.Validate("node-1"); err != nil {
		t.Fatal(err)
	}
	if bare := n.containerSpec(c, nil); bare.PodIP != "127.100.0.2" || bare.Ports != nil {
		t.Fatalf("spec without a pod %+v", bare)
	}
}

func TestPodOfRuntimeID(t *testing.T) {
	for id, want := range map[string]string{
		runtimeID(model.ContainerID("node-1", "echo-abc-0", 3)): "echo-abc-0",
		runtimeID(model.ContainerID("node-2", "echo-abc-0", 0)): "",
		"node-1_x":  "",
		"unrelated": "",
	} {
		if got := podOfRuntimeID(id, "node-1"); got != want {
			t.Errorf("podOfRuntimeID(%q) = %q, want %q", id, got, want)
		}
	}
}

func TestReadinessProbe(t *testing.T) {
	healthy := true
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/healthz" || !healthy {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	}))
	defer srv.Close()
	host, portStr, _ := net.SplitHostPort(srv.Listener.Addr().String())
	port, _ := strconv.Atoi(portStr)
	pod := func(probePort api.IntOrString) *api.Pod {
		return &api.Pod{Spec: api.PodSpec{Containers: []api.Container{{Name: "app",
			Ports:          []api.ContainerPort{{Name: "http", ContainerPort: int32(port)}},
			ReadinessProbe: &api.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &api.HTTPGetAction{Path: "/healthz", Port: probePort}}}}}}}
	}
	w := &writer{ctx: context.Background()}
	if !w.probe(pod(api.FromInt32(int32(port))), host) || !w.probe(pod(api.FromString("http")), host) {
		t.Fatal("a healthy container failed its probe")
	}
	healthy = false
	if w.probe(pod(api.FromInt32(int32(port))), host) {
		t.Fatal("a 503 passed the probe")
	}
	if w.probe(pod(api.FromString("nope")), host) {
		t.Fatal("an unknown named port passed the probe")
	}
	if !w.probe(&api.Pod{Spec: api.PodSpec{Containers: []api.Container{{Name: "app"}}}}, host) {
		t.Fatal("a container with no probe is not ready once running")
	}
}

func TestMissingImageIsAWaitingReasonThenRuns(t *testing.T) {
	host := container.NewFakeHost(time.Now)
	host.Node("node-1").AddImage("other:1") // nginx:1 is not present
	r, err := StartRunning(RunningConfig{Store: storetest.Store(t), Nodes: 1, Tick: 20 * time.Millisecond,
		Runtime: func(node string) container.Runtime { return realish{host.Node(node)} }, Events: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	r.mustApply(t, "apply myapp replicas=1 image=nginx:1")
	reason := func() string {
		list, err := r.env.client.List(context.Background(), "pods", model.DefaultNamespace, registry.ListOptions{})
		if err != nil || len(api.Items(list)) == 0 {
			return ""
		}
		p := api.Items(list)[0].(*api.Pod)
		if len(p.Status.ContainerStatuses) == 0 || p.Status.ContainerStatuses[0].State.Waiting == nil {
			return ""
		}
		return p.Status.ContainerStatuses[0].State.Waiting.Reason
	}
	deadline := time.Now().Add(30 * time.Second)
	for reason() != container.ReasonImagePullBackOff {
		if time.Now().After(deadline) {
			t.Fatalf("waiting reason %q, want %s", reason(), container.ReasonImagePullBackOff)
		}
		time.Sleep(20 * time.Millisecond)
	}
	// The kubelet says why, as Events on the pod.
	for _, want := range []string{"Warning Failed Failed to pull image \"nginx:1\"", "Normal BackOff Back-off pulling image \"nginx:1\""} {
		for !hasEvent(t, r, want) {
			if time.Now().After(deadline) {
				t.Fatalf("no event %q", want)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	host.Node("node-1").AddImage("nginx:1")
	if s := r.converge(t, model.NewChecker()); readyPods(s) != 1 {
		t.Fatalf("%d ready pods once the image is there, want 1", readyPods(s))
	}
	if got := reason(); got != "" {
		t.Fatalf("a running pod still waits: %q", got)
	}
}

// hasEvent reports an Event "Type Reason Message..." with that prefix.
func hasEvent(t *testing.T, r *Running, prefix string) bool {
	t.Helper()
	l, err := r.env.client.List(context.Background(), "events", api.DefaultNamespace, registry.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range api.Items(l) {
		ev := o.(*api.Event)
		if strings.HasPrefix(ev.Type+" "+ev.Reason+" "+ev.Message, prefix) {
			return true
		}
	}
	return false
}
