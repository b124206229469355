package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	tasksapi "github.com/containerd/containerd/api/services/tasks/v1"
	"github.com/containerd/containerd/v2/client"
	"github.com/containerd/containerd/v2/core/snapshots"
	"github.com/containerd/containerd/v2/pkg/namespaces"

	"github.com/converge-dev/converge/impl/container/containerd"
	"github.com/converge-dev/converge/impl/image"
)

// needContainerd skips (or, with CI=true, fails) when this machine cannot
// run containers.
func needContainerd(t *testing.T) {
	t.Helper()
	why := ""
	for _, bin := range []string{"containerd", "containerd-shim-runc-v2", "runc"} {
		if _, err := exec.LookPath(bin); err != nil {
			why = bin + " is not installed (apt-get install -y containerd runc)"
		}
	}
	if why == "" && os.Geteuid() != 0 {
		why = "running containers needs root"
	}
	if why == "" {
		return
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("CI=true but %s", why)
	}
	t.Skipf("skipping: %s", why)
}

type podView struct {
	Name     string
	IP       string
	Ready    bool
	Restarts int
}

func echoPods(t *testing.T, kc string) []podView {
	t.Helper()
	var list struct {
		Items []struct {
			Metadata struct {
				Name              string  `json:"name"`
				DeletionTimestamp *string `json:"deletionTimestamp"`
			} `json:"metadata"`
			Status struct {
				PodIP             string `json:"podIP"`
				ContainerStatuses []struct {
					Ready        bool `json:"ready"`
					RestartCount int  `json:"restartCount"`
				} `json:"containerStatuses"`
			} `json:"status"`
		} `json:"items"`
	}
	if err := json.Unmarshal([]byte(kubectl(t, kc, "get", "pods", "-l", "app=echo", "-o", "json")), &list); err != nil {
		t.Fatal(err)
	}
	var out []podView
	for _, it := range list.Items {
		if it.Metadata.DeletionTimestamp != nil {
			continue
		}
		v := podView{Name: it.Metadata.Name, IP: it.Status.PodIP}
		if len(it.Status.ContainerStatuses) > 0 {
			v.Ready, v.Restarts = it.Status.ContainerStatuses[0].Ready, it.Status.ContainerStatuses[0].RestartCount
		}
		out = append(out, v)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// waitReady polls until n echo pods are ready and returns, for each pod
// that turned ready while polling, how long after since it did.
func waitReady(t *testing.T, kc string, n int, since time.Time, timeout time.Duration) ([]podView, map[string]time.Duration) {
	t.Helper()
	became := map[string]time.Duration{}
	deadline := time.Now().Add(timeout)
	for {
		pods := echoPods(t, kc)
		ready := 0
		for _, p := range pods {
			if p.Ready {
				ready++
				if _, ok := became[p.Name]; !ok {
					became[p.Name] = time.Since(since)
				}
			}
		}
		if ready == n && len(pods) == n {
			return pods, became
		}
		if time.Now().After(deadline) {
			t.Fatalf("want %d ready echo pods, have %+v", n, pods)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

type echoAnswer struct {
	Pod   string `json:"pod"`
	IP    string `json:"ip"`
	Count int64  `json:"count"`
}

// askService sends requests to url, one connection each, until every pod
// in want has answered (the kube-proxy follows the endpoints within a few
// hundred milliseconds) and returns who answered.
func askService(t *testing.T, url string, want []podView) map[string]int {
	t.Helper()
	c := &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	got := map[string]int{}
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); {
		var a echoAnswer
		resp, err := c.Get(url)
		if err == nil {
			err = json.NewDecoder(resp.Body).Decode(&a)
			resp.Body.Close()
		}
		if err != nil {
			time.Sleep(50 * time.Millisecond)
			continue
		}
		got[a.Pod]++
		all := true
		for _, p := range want {
			all = all && got[p.Name] > 0
		}
		if all {
			return got
		}
	}
	t.Fatalf("through %s, answers %v, want every one of %+v", url, got, want)
	return nil
}

func percentile(ds []time.Duration, p float64) time.Duration {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	i := int(p*float64(len(s))+0.999999) - 1
	return s[max(0, min(i, len(s)-1))]
}

// TestRealContainersThroughConvergeUp is issue 8's end-to-end test: real
// kubectl, real containerd, the echo workload reached through the
// userspace kube-proxy. The daemon is started here, not by `up`, so it
// outlives the first `converge up` and the second one adopts its
// containers.
func TestRealContainersThroughConvergeUp(t *testing.T) {
	needKubectl(t)
	needContainerd(t)
	dir, err := os.MkdirTemp("", "cvg-real-") // short: unix socket paths are limited
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	d, err := containerd.StartDaemon(filepath.Join(dir, "ctrd"))
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := d.Close(); err != nil {
			t.Errorf("closing containerd: %v", err)
		}
	}()
	var archive bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if err := image.BuildEcho(ctx, &archive, ""); err != nil {
		t.Fatal(err)
	}
	echoTar := filepath.Join(dir, "echo.tar")
	if err := os.WriteFile(echoTar, archive.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}

	// 1. converge up on containerd, the image imported, echo applied.
	f := upFlags{dataDir: filepath.Join(dir, "data"), listen: "127.0.0.1:0", nodes: 3, tick: 200 * time.Millisecond,
		quiet: true, runtime: "containerd", daemon: d, imports: []string{echoTar}}
	kc, stop := startUpWith(t, f)
	defer func() {
		if stop != nil {
			stop()
		}
	}()
	applied := time.Now()
	kubectl(t, kc, "apply", "-f", "examples/echo.yaml")
	pods, became := waitReady(t, kc, 3, applied, 30*time.Second)
	var latencies []time.Duration
	for _, l := range became {
		latencies = append(latencies, l)
	}
	t.Logf("apply -> 3 pods Ready: %v", latencies)

	// kubectl logs reads what the container printed, from containerd's log
	// file; --tail keeps the last lines.
	name := pods[0].Name
	want := fmt.Sprintf("converge-echo: pod=%q listening on", name)
	if out := kubectl(t, kc, "logs", name); !strings.Contains(out, want) {
		t.Fatalf("kubectl logs %s: %q, want a line with %q", name, out, want)
	}
	if out := kubectl(t, kc, "logs", name, "--tail=1"); strings.Count(out, "\n") != 1 {
		t.Fatalf("kubectl logs --tail=1 %s: %q", name, out)
	}

	// 2. The Service's clusterIP answers from every pod.
	ip := strings.TrimSpace(kubectl(t, kc, "get", "svc", "echo", "-o", "jsonpath={.spec.clusterIP}"))
	if !strings.HasPrefix(ip, "127.200.") {
		t.Fatalf("clusterIP %q, want one in 127.200.0.0/16", ip)
	}
	url := "http://" + ip + ":80/"
	askService(t, url, pods)

	// 2b. As a NodePort Service it gets the lowest free node port and
	// answers on every node's own address there too.
	kubectl(t, kc, "patch", "svc", "echo", "-p", `{"spec":{"type":"NodePort"}}`)
	nodePort := strings.TrimSpace(kubectl(t, kc, "get", "svc", "echo", "-o", "jsonpath={.spec.ports[0].nodePort}"))
	if nodePort != "30000" {
		t.Fatalf("nodePort %q, want 30000", nodePort)
	}
	for _, nodeIP := range strings.Fields(kubectl(t, kc, "get", "nodes", "-o", `jsonpath={.items[*].status.addresses[?(@.type=="InternalIP")].address}`)) {
		askService(t, "http://"+nodeIP+":"+nodePort+"/", pods)
	}

	// 3. Kill one container's process: the kubelet restarts it.
	victim := pods[0]
	node := strings.TrimSpace(kubectl(t, kc, "get", "pod", victim.Name, "-o", "jsonpath={.spec.nodeName}"))
	nodeRT, err := containerd.New(d.Address(), node, d.RuntimeOptions()...)
	if err != nil {
		t.Fatal(err)
	}
	defer nodeRT.Close()
	pid, err := nodeRT.Pid(ctx, strings.ReplaceAll(node+"/default/"+victim.Name+"/0", "/", "_"))
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		restarted := false
		for _, p := range echoPods(t, kc) {
			restarted = restarted || (p.Name == victim.Name && p.Restarts == 1 && p.Ready)
		}
		if restarted {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("pod %s was not restarted: %+v", victim.Name, echoPods(t, kc))
		}
		time.Sleep(100 * time.Millisecond)
	}
	if out := kubectl(t, kc, "get", "pod", victim.Name); !strings.Contains(out, "Running   1") {
		t.Fatalf("kubectl get pods does not show the restart:\n%s", out)
	}

	// 4. Scale to 5: five pods answer.
	scaled := time.Now()
	kubectl(t, kc, "scale", "deployment", "echo", "--replicas=5")
	old := pods
	pods, became = waitReady(t, kc, 5, scaled, 30*time.Second)
	for name, l := range became {
		if !containsPod(old, name) {
			latencies = append(latencies, l)
		}
	}
	askService(t, url, pods)

	// Startup latency over more pods: scale to 20.
	scaled = time.Now()
	kubectl(t, kc, "scale", "deployment", "echo", "--replicas=20")
	_, became = waitReady(t, kc, 20, scaled, 60*time.Second)
	t.Logf("scale 5 -> 20: last pod Ready after %v", percentile(mapValues(became), 1))
	for name, l := range became {
		if !containsPod(pods, name) {
			latencies = append(latencies, l)
		}
	}
	t.Logf("pod startup latency (apply/scale -> Ready, polled every ~50ms through kubectl), %d pods: p50 %v, p99 %v (Kubernetes SLO: p99 <= 5s)",
		len(latencies), percentile(latencies, 0.5), percentile(latencies, 0.99))
	kubectl(t, kc, "scale", "deployment", "echo", "--replicas=5")
	pods, _ = waitReady(t, kc, 5, time.Now(), 30*time.Second)

	// 6. Restart converge up while the containers run: they are adopted.
	deadline = time.Now().Add(30 * time.Second)
	before := runningIDs(t, ctx, d)
	for len(before) != 5 {
		if time.Now().After(deadline) {
			t.Fatalf("before the restart: %d running containers, want 5: %v", len(before), before)
		}
		time.Sleep(100 * time.Millisecond)
		before = runningIDs(t, ctx, d)
	}
	stop()
	stop = nil
	f.imports = nil
	kc, stop = startUpWith(t, f)
	time.Sleep(2 * time.Second) // a few relists and syncs
	after, _ := waitReady(t, kc, 5, time.Now(), 30*time.Second)
	if got := runningIDs(t, ctx, d); fmt.Sprint(got) != fmt.Sprint(before) {
		t.Fatalf("after the restart the running containers are %v, want the same as before %v", got, before)
	}
	for i := range after {
		if after[i].Name != pods[i].Name || after[i].Restarts != pods[i].Restarts {
			t.Fatalf("after the restart %+v, before %+v", after, pods)
		}
	}
	askService(t, url, after)

	// 5. Delete: nothing is left in the namespace.
	kubectl(t, kc, "delete", "-f", "examples/echo.yaml")
	deadline = time.Now().Add(30 * time.Second)
	for {
		left := leftovers(t, ctx, d)
		if len(left) == 0 && strings.TrimSpace(kubectl(t, kc, "get", "pods", "-o", "name")) == "" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after delete, left in the converge namespace: %v", left)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func containsPod(pods []podView, name string) bool {
	for _, p := range pods {
		if p.Name == name {
			return true
		}
	}
	return false
}

// runningIDs lists the running containers of every node, sorted.
func runningIDs(t *testing.T, ctx context.Context, d *containerd.Daemon) []string {
	t.Helper()
	var out []string
	for i := 1; i <= 3; i++ {
		rt, err := containerd.New(d.Address(), fmt.Sprintf("node-%d", i), d.RuntimeOptions()...)
		if err != nil {
			t.Fatal(err)
		}
		cs, err := rt.List(ctx)
		rt.Close()
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cs {
			if c.State == "running" {
				out = append(out, c.ID)
			}
		}
	}
	sort.Strings(out)
	return out
}

// leftovers lists the tasks, containers and container snapshots (not image
// layers) in the converge namespace.
func leftovers(t *testing.T, ctx context.Context, d *containerd.Daemon) []string {
	t.Helper()
	c, err := client.New(d.Address())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx = namespaces.WithNamespace(ctx, containerd.Namespace)
	var out []string
	cs, err := c.Containers(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, ctr := range cs {
		out = append(out, "container "+ctr.ID())
	}
	tasks, err := c.TaskService().List(ctx, &tasksapi.ListTasksRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for _, task := range tasks.Tasks {
		out = append(out, "task "+task.ID)
	}
	err = c.SnapshotService(containerd.DefaultSnapshotter).Walk(ctx, func(_ context.Context, info snapshots.Info) error {
		if info.Kind != snapshots.KindCommitted {
			out = append(out, "snapshot "+info.Name)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func mapValues(m map[string]time.Duration) []time.Duration {
	var out []time.Duration
	for _, v := range m {
		out = append(out, v)
	}
	return out
}

func TestUpRuntimeFlags(t *testing.T) {
	for _, args := range [][]string{
		{"--runtime", "docker"},
		{"--import", "echo.tar"},
		{"--containerd-address", "/run/containerd/containerd.sock"},
	} {
		var out, errOut bytes.Buffer
		err := runUp(args, &out, &errOut)
		if err == nil || !strings.Contains(err.Error(), "runtime") {
			t.Errorf("up %v: %v, want a usage error about the runtime", args, err)
		}
	}
}
