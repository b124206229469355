package containerd_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	tasksapi "github.com/containerd/containerd/api/services/tasks/v1"
	"github.com/containerd/containerd/v2/client"
	"github.com/containerd/containerd/v2/core/snapshots"
	"github.com/containerd/containerd/v2/pkg/namespaces"

	"github.com/converge-dev/converge/impl/container"
	"github.com/converge-dev/converge/impl/container/containerd"
	"github.com/converge-dev/converge/impl/container/containertest"
	"github.com/converge-dev/converge/impl/image"
)

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

func TestConformance(t *testing.T) {
	d := sharedDaemon(t)
	runtimes := map[string]*containerd.Runtime{}
	containertest.RunConformance(t,
		func(t *testing.T, node string) container.Runtime {
			rt := newRuntime(t, d, node)
			runtimes[node] = rt
			return rt
		},
		func(id string) {
			for _, rt := range runtimes {
				if pid, err := rt.Pid(context.Background(), id); err == nil {
					if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
						t.Errorf("kill -9 %d: %v", pid, err)
					}
					return
				}
			}
			t.Errorf("crash: no runtime has %s running", id)
		},
		containertest.WithReadiness(containertest.HTTPReady))
	assertNamespaceEmpty(t, d)
}

// assertNamespaceEmpty checks that removing every container left no task,
// container or container snapshot behind (image layers stay).
func assertNamespaceEmpty(t *testing.T, d *containerd.Daemon) {
	t.Helper()
	c, err := client.New(d.Address())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := namespaces.WithNamespace(testCtx(t), containerd.Namespace)
	cs, err := c.Containers(ctx)
	if err != nil || len(cs) != 0 {
		t.Fatalf("containers left: %d (err %v)", len(cs), err)
	}
	tasks, err := c.TaskService().List(ctx, &tasksapi.ListTasksRequest{})
	if err != nil || len(tasks.Tasks) != 0 {
		t.Fatalf("tasks left: %v (err %v)", tasks, err)
	}
	var active []string
	err = c.SnapshotService(containerd.DefaultSnapshotter).Walk(ctx, func(_ context.Context, info snapshots.Info) error {
		if info.Kind != snapshots.KindCommitted {
			active = append(active, info.Name)
		}
		return nil
	})
	if err != nil || len(active) != 0 {
		t.Fatalf("container snapshots left: %v (err %v)", active, err)
	}
}

func echoSpec(node, name, ip string, port int) container.ContainerSpec {
	return container.ContainerSpec{
		ID: node + "_" + name + "_0", Node: node, PodNamespace: "default", PodName: node + "-pod", PodUID: "uid-1",
		Name: name, Image: image.EchoImage, PodIP: ip, Ports: []int{port},
	}
}

func TestEchoAnswersOnPodIP(t *testing.T) {
	d := sharedDaemon(t)
	rt := newRuntime(t, d, "http-node")
	sp := echoSpec("http-node", "echo", "127.78.0.1", 18081)
	if _, err := rt.Start(testCtx(t), sp); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		rt.Stop(context.Background(), sp.ID, 0)
		rt.Remove(context.Background(), sp.ID)
	})
	base := "http://127.78.0.1:18081"
	hc := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{Proxy: nil}}
	get := func(path string) (int, string) {
		t.Helper()
		deadline := time.Now().Add(20 * time.Second)
		for {
			resp, err := hc.Get(base + path)
			if err == nil {
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				return resp.StatusCode, string(body)
			}
			if time.Now().After(deadline) {
				t.Fatalf("GET %s: %v", path, err)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	if code, body := get("/healthz"); code != http.StatusOK || body != "ok\n" {
		t.Fatalf("healthz: %d %q", code, body)
	}
	for want := 1; want <= 2; want++ {
		code, body := get("/")
		var r struct {
			Pod, IP string
			Count   int
		}
		if err := json.Unmarshal([]byte(body), &r); code != http.StatusOK || err != nil {
			t.Fatalf("GET /: %d %q (%v)", code, body, err)
		}
		if r.Pod != sp.PodName || r.IP != sp.PodIP || r.Count != want {
			t.Fatalf("reply %+v, want pod %s ip %s count %d", r, sp.PodName, sp.PodIP, want)
		}
	}
	logs, err := os.ReadFile(rt.LogPath(sp.ID))
	if err != nil || !strings.Contains(string(logs), "listening on 127.78.0.1:18081") {
		t.Fatalf("log %q (err %v)", logs, err)
	}
}

func TestRestartedRuntimeAdoptsContainers(t *testing.T) {
	d := sharedDaemon(t)
	first, err := containerd.New(d.Address(), "adopt-node", d.RuntimeOptions()...)
	if err != nil {
		t.Fatal(err)
	}
	sp := echoSpec("adopt-node", "app", "127.78.0.2", 18082)
	sp.Attempt = 3
	started, err := first.Start(testCtx(t), sp)
	if err != nil {
		t.Fatal(err)
	}
	first.Close() // the kubelet goes away; the container does not

	second := newRuntime(t, d, "adopt-node")
	list, err := second.List(testCtx(t))
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 || !container.SameContainer(list[0], sp) || list[0].State != container.StateRunning ||
		!list[0].StartedAt.Equal(started.StartedAt) {
		t.Fatalf("adopted %+v, started %+v", list, started)
	}
	if err := second.Stop(testCtx(t), sp.ID, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	if err := second.Remove(testCtx(t), sp.ID); err != nil {
		t.Fatal(err)
	}
}

func TestFailedStartLeavesNothing(t *testing.T) {
	d := sharedDaemon(t)
	rt := newRuntime(t, d, "fail-node")
	sp := echoSpec("fail-node", "nobinary", "127.78.0.3", 18083)
	sp.Command = []string{"/does-not-exist"}
	if _, err := rt.Start(testCtx(t), sp); err == nil {
		rt.Stop(context.Background(), sp.ID, 0)
		rt.Remove(context.Background(), sp.ID)
		t.Fatal("start of a missing binary succeeded")
	}
	if _, err := rt.Status(testCtx(t), sp.ID); !errors.Is(err, container.ErrNotFound) {
		t.Fatalf("status after a failed start: %v", err)
	}
	// The id is free: a good start with it works.
	sp.Command = nil
	if _, err := rt.Start(testCtx(t), sp); err != nil {
		t.Fatalf("start after a failed start: %v", err)
	}
	if err := rt.Stop(testCtx(t), sp.ID, 0); err != nil {
		t.Fatal(err)
	}
	if err := rt.Remove(testCtx(t), sp.ID); err != nil {
		t.Fatal(err)
	}
}

func TestImportArchive(t *testing.T) {
	d := sharedDaemon(t)
	names, err := containerd.ImportArchive(testCtx(t), d.Address(), shared.archive)
	if err != nil || fmt.Sprint(names) != fmt.Sprint([]string{image.EchoImage}) {
		t.Fatalf("re-import = %v, %v", names, err)
	}
	bad := filepath.Join(t.TempDir(), "bad.tar")
	os.WriteFile(bad, []byte("not a tar"), 0o644)
	if _, err := containerd.ImportArchive(testCtx(t), d.Address(), bad); err == nil {
		t.Fatal("import of garbage succeeded")
	}
	if _, err := containerd.ImportArchive(testCtx(t), d.Address(), filepath.Join(t.TempDir(), "missing.tar")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("import of a missing file: %v", err)
	}
}

func TestMissingDaemon(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "none.sock")
	if _, err := containerd.New(sock, "n1"); !errors.Is(err, containerd.ErrDaemonUnavailable) {
		t.Fatalf("New: %v", err)
	}
	if _, err := containerd.ImportArchive(context.Background(), sock, "x.tar"); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("ImportArchive of a missing file: %v", err)
	}
	if _, err := containerd.ImportReader(context.Background(), sock, strings.NewReader("")); !errors.Is(err, containerd.ErrDaemonUnavailable) {
		t.Fatalf("ImportReader: %v", err)
	}
	if _, err := containerd.New(sock, ""); !errors.Is(err, container.ErrInvalidSpec) {
		t.Fatalf("New without node: %v", err)
	}
}
