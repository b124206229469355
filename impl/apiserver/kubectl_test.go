package apiserver

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/impl/registry"
	"github.com/converge-dev/converge/impl/store/storetest"
)

const kubectlPath = "/usr/bin/kubectl"

// kubectlEnv is a TLS server with token auth and a kubeconfig for it.
type kubectlEnv struct {
	t          *testing.T
	kubeconfig string
	reg        *registry.Registry
}

func newKubectlEnv(t *testing.T) *kubectlEnv {
	t.Helper()
	if _, err := os.Stat(kubectlPath); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("kubectl is required in CI: %v", err)
		}
		t.Skipf("kubectl not installed at %s: %v", kubectlPath, err)
	}
	dir := t.TempDir()
	files, err := EnsureTLS(filepath.Join(dir, "pki"))
	if err != nil {
		t.Fatal(err)
	}
	tlsCfg, err := files.TLSConfig()
	if err != nil {
		t.Fatal(err)
	}
	reg := registry.New(registry.Config{Store: storetest.Store(t)})
	s, err := New(Config{Registry: reg, Auth: testAuth(t, false), Log: log.New(io.Discard, "", 0)})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(s.Handler())
	srv.TLS = tlsCfg
	srv.StartTLS()
	t.Cleanup(srv.Close)
	kc := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: converge
  cluster:
    server: %s
    certificate-authority: %s
users:
- name: admin
  user:
    token: %s
contexts:
- name: converge
  context: {cluster: converge, user: admin, namespace: default}
current-context: converge
`, srv.URL, files.CA, adminToken)
	path := filepath.Join(dir, "kubeconfig")
	if err := os.WriteFile(path, []byte(kc), 0o600); err != nil {
		t.Fatal(err)
	}
	return &kubectlEnv{t: t, kubeconfig: path, reg: reg}
}

// run runs kubectl and fails the test if it fails.
func (k *kubectlEnv) run(args ...string) string {
	k.t.Helper()
	out, err := k.try(args...)
	if err != nil {
		k.t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

func (k *kubectlEnv) try(args ...string) (string, error) {
	out, err := k.command(context.Background(), append([]string{"--request-timeout=20s"}, args...)...).CombinedOutput()
	return string(out), err
}

// command is kubectl against the test server, with a private HOME so no
// user config or discovery cache leaks in.
func (k *kubectlEnv) command(ctx context.Context, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, kubectlPath, append([]string{"--kubeconfig", k.kubeconfig}, args...)...)
	cmd.Env = append(os.Environ(), "HOME="+filepath.Dir(k.kubeconfig), "KUBECACHEDIR="+filepath.Join(filepath.Dir(k.kubeconfig), "cache"))
	return cmd
}

func TestKubectlSeedFlow(t *testing.T) {
	k := newKubectlEnv(t)
	ctx := context.Background()
	deployment := func() *api.Deployment {
		t.Helper()
		obj, err := k.reg.Get(ctx, "deployments", "default", "myapp")
		if err != nil {
			t.Fatal(err)
		}
		return obj.(*api.Deployment)
	}
	expect := func(out, want string) {
		t.Helper()
		if !strings.Contains(out, want) {
			t.Fatalf("want %q in kubectl output:\n%s", want, out)
		}
	}

	expect(k.run("apply", "-f", "../../examples/my-app.yaml"), "deployment.apps/myapp created")
	expect(k.run("apply", "-f", "../../examples/my-app.yaml"), "deployment.apps/myapp unchanged")

	var d api.Deployment
	if err := json.Unmarshal([]byte(k.run("get", "deploy", "myapp", "-o", "json")), &d); err != nil {
		t.Fatal(err)
	}
	if *d.Spec.Replicas != 3 || d.Spec.Template.Spec.Containers[0].Image != "nginx:1.21.6" || d.Annotations["kubectl.kubernetes.io/last-applied-configuration"] == "" {
		t.Fatalf("get -o json: %+v", d)
	}

	expect(k.run("run", "web", "--image=nginx:1.27", "--labels=app=web"), "pod/web created")
	wide := k.run("get", "pods", "-o", "wide")
	expect(wide, "NOMINATED NODE")
	expect(wide, "web    0/1     Pending")
	expect(k.run("get", "deploy"), "myapp   0/3")

	expect(k.run("scale", "deployment", "myapp", "--replicas=5"), "deployment.apps/myapp scaled")
	if n := *deployment().Spec.Replicas; n != 5 {
		t.Fatalf("replicas %d after kubectl scale", n)
	}
	expect(k.run("set", "image", "deployment/myapp", "nginx=nginx:1.28"), "deployment.apps/myapp image updated")
	if c := deployment().Spec.Template.Spec.Containers; len(c) != 1 || c[0].Image != "nginx:1.28" || len(c[0].Ports) != 1 {
		t.Fatalf("containers after kubectl set image: %+v", c)
	}
	expect(k.run("patch", "deployment", "myapp", "--type=json", "-p", `[{"op":"replace","path":"/spec/replicas","value":2}]`), "patched")
	expect(k.run("patch", "deployment", "myapp", "--type=merge", "-p", `{"metadata":{"labels":{"tier":"web"}}}`), "patched")
	if got := deployment(); *got.Spec.Replicas != 2 || got.Labels["tier"] != "web" {
		t.Fatalf("after kubectl patch: replicas %d labels %v", *got.Spec.Replicas, got.Labels)
	}

	// kubectl get -w prints the change it is watching for.
	wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	cmd := k.command(wctx, "get", "pods", "-w", "--output-watch-events")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stdout)
	var seen []string
	waitFor := func(event, name string) {
		t.Helper()
		for sc.Scan() {
			seen = append(seen, sc.Text())
			if f := strings.Fields(sc.Text()); len(f) > 2 && f[0] == event && f[1] == name {
				return
			}
		}
		t.Fatalf("kubectl get -w ended before printing %s %s; it printed:\n%s", event, name, strings.Join(seen, "\n"))
	}
	waitFor("ADDED", "web") // the initial list
	if _, err := k.reg.Create(ctx, &api.Pod{ObjectMeta: api.ObjectMeta{Name: "watched", Namespace: "default"},
		Spec: api.PodSpec{Containers: []api.Container{{Name: "c", Image: "nginx"}}}}); err != nil {
		t.Fatal(err)
	}
	waitFor("ADDED", "watched")
	cancel()
	_ = cmd.Wait()

	expect(k.run("delete", "pods", "-l", "app=web"), `pod "web" deleted`)
	expect(k.run("delete", "deployment", "myapp"), `deployment.apps "myapp" deleted`)
	if _, err := k.reg.Get(ctx, "deployments", "default", "myapp"); !api.IsNotFound(err) {
		t.Fatalf("deployment still there: %v", err)
	}
	// Server-side apply is routed to its own handler.
	expect(k.run("apply", "--server-side", "-f", "../../examples/my-app.yaml"), "deployment.apps/myapp serverside-applied")
	if n := *deployment().Spec.Replicas; n != 3 {
		t.Fatalf("replicas %d after server-side apply", n)
	}
}

// kubectl diff and the --dry-run=server flags send dryRun=All: they must
// show the change and make none.
func TestKubectlDiffAndServerDryRun(t *testing.T) {
	k := newKubectlEnv(t)
	ctx := context.Background()
	replicas := func() int32 {
		t.Helper()
		obj, err := k.reg.Get(ctx, "deployments", "default", "myapp")
		if err != nil {
			t.Fatal(err)
		}
		return *obj.(*api.Deployment).Spec.Replicas
	}
	seed, err := os.ReadFile("../../examples/my-app.yaml")
	if err != nil {
		t.Fatal(err)
	}
	edited := filepath.Join(t.TempDir(), "my-app.yaml")
	if err := os.WriteFile(edited, []byte(strings.Replace(string(seed), "replicas: 3", "replicas: 5", 1)), 0o600); err != nil {
		t.Fatal(err)
	}

	// Nothing there yet: diff shows a creation (a dry-run create), makes none.
	out, err := k.try("diff", "-f", "../../examples/my-app.yaml")
	if exit, ok := err.(*exec.ExitError); !ok || exit.ExitCode() != 1 || !strings.Contains(out, "+  replicas: 3") {
		t.Fatalf("diff before apply: want exit 1 and the new object, got %v:\n%s", err, out)
	}
	if _, err := k.reg.Get(ctx, "deployments", "default", "myapp"); !api.IsNotFound(err) {
		t.Fatalf("diff created the deployment: %v", err)
	}
	if out := k.run("apply", "--dry-run=server", "-f", "../../examples/my-app.yaml"); !strings.Contains(out, "created (server dry run)") {
		t.Fatalf("apply --dry-run=server: %s", out)
	}
	if _, err := k.reg.Get(ctx, "deployments", "default", "myapp"); !api.IsNotFound(err) {
		t.Fatalf("a server dry run created the deployment: %v", err)
	}

	k.run("apply", "-f", "../../examples/my-app.yaml")
	if out := k.run("diff", "-f", "../../examples/my-app.yaml"); out != "" {
		t.Fatalf("diff of the applied manifest: want nothing, got:\n%s", out)
	}
	out, err = k.try("diff", "-f", edited)
	if exit, ok := err.(*exec.ExitError); !ok || exit.ExitCode() != 1 || !strings.Contains(out, "-  replicas: 3") || !strings.Contains(out, "+  replicas: 5") {
		t.Fatalf("diff of the edit: want exit 1 and 3 -> 5, got %v:\n%s", err, out)
	}
	for _, args := range [][]string{
		{"apply", "--dry-run=server", "-f", edited},
		{"apply", "--server-side", "--force-conflicts", "--dry-run=server", "-f", edited},
		{"scale", "deployment", "myapp", "--replicas=7", "--dry-run=server"},
		{"delete", "deployment", "myapp", "--dry-run=server"},
	} {
		if out := k.run(args...); !strings.Contains(out, "(server dry run)") {
			t.Fatalf("kubectl %s: %s", strings.Join(args, " "), out)
		}
		if n := replicas(); n != 3 {
			t.Fatalf("kubectl %s changed replicas to %d", strings.Join(args, " "), n)
		}
	}
}
