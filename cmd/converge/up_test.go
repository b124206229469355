package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// kubectlBin is the real kubectl; CI installs nothing else for it.
const kubectlBin = "/usr/bin/kubectl"

// startUp runs `converge up` on dataDir (fake runtimes) until the returned
// stop is called.
func startUp(t *testing.T, dataDir string) (kubeconfig string, stop func()) {
	t.Helper()
	return startUpWith(t, upFlags{dataDir: dataDir, listen: "127.0.0.1:0", nodes: 3, tick: 200 * time.Millisecond, quiet: true, events: true})
}

// startUpWith runs `converge up` with f until the returned stop is called.
func startUpWith(t testing.TB, f upFlags) (kubeconfig string, stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	kubeconfig = filepath.Join(f.dataDir, "kubeconfig")
	os.Remove(kubeconfig)
	go func() { done <- up(ctx, f, io.Discard) }()
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, err := os.Stat(kubeconfig); err == nil {
			break
		}
		select {
		case err := <-done:
			t.Fatalf("converge up ended: %v", err)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("converge up did not write its kubeconfig")
		}
		time.Sleep(20 * time.Millisecond)
	}
	return kubeconfig, func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("converge up: %v", err)
		}
	}
}

func kubectl(t *testing.T, kubeconfig string, args ...string) string {
	t.Helper()
	cmd := exec.Command(kubectlBin, args...)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+kubeconfig)
	cmd.Dir = filepath.Join("..", "..")
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		t.Fatalf("kubectl %s: %v\n%s%s", strings.Join(args, " "), err, out.String(), errOut.String())
	}
	return out.String()
}

// kubectlFails runs kubectl expecting a failure and returns its output.
func kubectlFails(t *testing.T, kubeconfig string, args ...string) string {
	t.Helper()
	cmd := exec.Command(kubectlBin, args...)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+kubeconfig)
	cmd.Dir = filepath.Join("..", "..")
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("kubectl %s succeeded, want a failure:\n%s", strings.Join(args, " "), out)
	}
	return string(out)
}

func needKubectl(t testing.TB) {
	if _, err := os.Stat(kubectlBin); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("kubectl is required in CI: %v", err)
		}
		t.Skipf("the real kubectl is not at %s", kubectlBin)
	}
}

// TestKubectlAgainstConvergeUp walks the seed flow with the real kubectl
// against `converge up`, then restarts it on the same data dir.
func TestKubectlAgainstConvergeUp(t *testing.T) {
	needKubectl(t)
	dir := t.TempDir()
	kc, stop := startUp(t, dir)
	defer func() {
		if stop != nil {
			stop()
		}
	}()

	if out := kubectl(t, kc, "apply", "-f", "examples/my-app.yaml"); !strings.Contains(out, "deployment.apps/myapp created") {
		t.Fatalf("apply: %s", out)
	}
	kubectl(t, kc, "rollout", "status", "deployment/myapp", "--timeout=60s")
	if out := kubectl(t, kc, "wait", "--for=condition=Available", "deployment/myapp", "--timeout=30s"); !strings.Contains(out, "condition met") {
		t.Fatalf("wait --for=condition=Available: %s", out)
	}
	var d struct {
		Status struct{ ReadyReplicas int } `json:"status"`
	}
	if err := json.Unmarshal([]byte(kubectl(t, kc, "get", "deploy", "myapp", "-o", "json")), &d); err != nil || d.Status.ReadyReplicas != 3 {
		t.Fatalf("get -o json: ready %d, %v", d.Status.ReadyReplicas, err)
	}
	if out := kubectl(t, kc, "get", "pods", "-o", "wide"); strings.Count(out, "Running") != 3 {
		t.Fatalf("get pods -o wide:\n%s", out)
	}
	// What the components did is there as Events, about the right objects.
	if out := kubectl(t, kc, "get", "events"); !strings.Contains(out, "ScalingReplicaSet") || !strings.Contains(out, "deployment/myapp") ||
		!strings.Contains(out, "Scheduled") || !strings.Contains(out, "Started") {
		t.Fatalf("get events:\n%s", out)
	}
	if out := kubectl(t, kc, "describe", "deployment", "myapp"); !regexp.MustCompile(`(?m)^Events:\n(?s:.*)Normal +ScalingReplicaSet +\S+ +deployment-controller +Scaled up replica set myapp-\w+ from 0 to 3`).MatchString(out) {
		t.Fatalf("describe deployment shows no scaling event:\n%s", out)
	}
	if out := kubectl(t, kc, "describe", "node", "node-2"); !strings.Contains(out, "Registered Node node-2 in Controller") {
		t.Fatalf("describe node shows no registration:\n%s", out)
	}
	pod := strings.TrimSpace(kubectl(t, kc, "get", "pods", "-o", "jsonpath={.items[0].metadata.name}"))
	if out := kubectl(t, kc, "describe", "pod", pod); !strings.Contains(out, "Successfully assigned default/"+pod+" to node-") ||
		!strings.Contains(out, "Started container nginx") || strings.Contains(out, "SuccessfulCreate") {
		t.Fatalf("describe pod %s shows not just its own events:\n%s", pod, out)
	}
	// What a kubelet reports besides the model's fields: times and conditions.
	if out := kubectl(t, kc, "describe", "pod", pod); !regexp.MustCompile(`Start Time: +\w{3}, `).MatchString(out) ||
		strings.Contains(out, "0001 00:00:00") || !regexp.MustCompile(`PodScheduled +True`).MatchString(out) ||
		!regexp.MustCompile(`Initialized +True`).MatchString(out) {
		t.Fatalf("describe pod %s lacks a kubelet's times or conditions:\n%s", pod, out)
	}
	// Relabelling a pod takes it out of its ReplicaSet, which makes another.
	kubectl(t, kc, "label", "pod", pod, "app=debug", "--overwrite")
	deadline := time.Now().Add(30 * time.Second)
	for {
		out := kubectl(t, kc, "get", "pods", "-l", "app=myapp", "-o", "name")
		owners := kubectl(t, kc, "get", "pod", pod, "-o", "jsonpath={.metadata.ownerReferences}")
		if strings.Count(out, "pod/") == 3 && !strings.Contains(out, pod) && strings.TrimSpace(owners) == "" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after relabelling %s: pods with app=myapp:\n%s\nits owners: %s", pod, out, owners)
		}
		time.Sleep(200 * time.Millisecond)
	}
	kubectl(t, kc, "delete", "pod", pod)
	// A pod no node can take says why, in a FailedScheduling warning.
	kubectl(t, kc, "run", "stuck", "--image=nginx:1.27", `--overrides={"spec":{"nodeSelector":{"disk":"none"}}}`)
	deadline = time.Now().Add(30 * time.Second)
	for {
		out := kubectl(t, kc, "describe", "pod", "stuck")
		if strings.Contains(out, "FailedScheduling") && strings.Contains(out, "0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector.") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("describe pod stuck:\n%s", out)
		}
		time.Sleep(200 * time.Millisecond)
	}
	kubectl(t, kc, "delete", "pod", "stuck")
	// A pause is refused, not ignored: the controllers cannot honour it.
	if out := kubectlFails(t, kc, "rollout", "pause", "deployment/myapp"); !strings.Contains(out, "spec.paused: Forbidden") {
		t.Fatalf("rollout pause:\n%s", out)
	}
	// Nodes register an address and a version, and a pod's hostIP is its
	// node's address, as describe shows it ("Node: node-1/127.100.0.1";
	// node-N has pod range N-1).
	if out := kubectl(t, kc, "get", "nodes", "-o", "wide"); !strings.Contains(out, "INTERNAL-IP") ||
		!regexp.MustCompile(`node-1 +Ready +<none> +\S+ +v1\.32\.0-converge +127\.100\.0\.1 +<none>`).MatchString(out) {
		t.Fatalf("get nodes -o wide:\n%s", out)
	}
	if out := kubectl(t, kc, "describe", "pods"); !regexp.MustCompile(`Node: +node-(\d)/127\.100\.(\d)\.1\n`).MatchString(out) {
		t.Fatalf("describe pods shows no node address:\n%s", out)
	} else {
		for _, m := range regexp.MustCompile(`Node: +node-(\d)/127\.100\.(\d)\.1\n`).FindAllStringSubmatch(out, -1) {
			if n, r := m[1][0]-'0', m[2][0]-'0'; n != r+1 {
				t.Fatalf("a pod on node-%s has the host address of node %s:\n%s", m[1], m[2], out)
			}
		}
	}

	// get -w: events arrive while we scale.
	watch := exec.Command(kubectlBin, "get", "pods", "-w", "--request-timeout=8s")
	watch.Env = append(os.Environ(), "KUBECONFIG="+kc)
	var watched bytes.Buffer
	watch.Stdout = &watched
	if err := watch.Start(); err != nil {
		t.Fatal(err)
	}
	kubectl(t, kc, "scale", "deployment", "myapp", "--replicas=5")
	kubectl(t, kc, "rollout", "status", "deployment/myapp", "--timeout=60s")
	time.Sleep(time.Second)
	_ = watch.Process.Kill()
	_ = watch.Wait()
	if n := strings.Count(watched.String(), "myapp-"); n < 5 {
		t.Fatalf("get -w saw %d pod lines:\n%s", n, watched.String())
	}

	kubectl(t, kc, "set", "image", "deployment/myapp", "nginx=nginx:1.28")
	kubectl(t, kc, "rollout", "status", "deployment/myapp", "--timeout=90s")
	if out := kubectl(t, kc, "get", "pods", "-o", "jsonpath={.items[*].spec.containers[0].image}"); strings.Count(out, "nginx:1.28") != 5 || strings.Contains(out, "nginx:1.27") {
		t.Fatalf("after set image: %s", out)
	}

	// Every template change rolls out and is numbered: restart and set env
	// too; undo goes back to the previous template and renumbers it.
	kubectl(t, kc, "rollout", "restart", "deployment/myapp")
	kubectl(t, kc, "rollout", "status", "deployment/myapp", "--timeout=90s")
	kubectl(t, kc, "annotate", "deployment/myapp", "kubernetes.io/change-cause=greet in English")
	kubectl(t, kc, "set", "env", "deployment/myapp", "GREETING=hi")
	kubectl(t, kc, "rollout", "status", "deployment/myapp", "--timeout=90s")
	if out := kubectl(t, kc, "rollout", "history", "deployment/myapp"); !regexp.MustCompile(`(?m)^4 +greet in English$`).MatchString(out) {
		t.Fatalf("rollout history shows no change-cause for revision 4:\n%s", out)
	}
	if out := kubectl(t, kc, "rollout", "history", "deployment/myapp"); !regexp.MustCompile(`(?m)^1 .*\n2 .*\n3 .*\n4 `).MatchString(out) {
		t.Fatalf("rollout history after image, restart and env changes:\n%s", out)
	}
	if out := kubectl(t, kc, "rollout", "undo", "deployment/myapp"); !strings.Contains(out, "rolled back") {
		t.Fatalf("rollout undo: %s", out)
	}
	kubectl(t, kc, "rollout", "status", "deployment/myapp", "--timeout=90s")
	if out := kubectl(t, kc, "get", "pods", "-o", "jsonpath={.items[*].spec.containers[0].env}"); strings.Contains(out, "GREETING") {
		t.Fatalf("after undo the pods still have the env var: %s", out)
	}
	if out := kubectl(t, kc, "rollout", "history", "deployment/myapp"); !regexp.MustCompile(`(?m)^1 .*\n2 .*\n4 .*\n5 `).MatchString(out) {
		t.Fatalf("rollout history after undo (revision 3 comes back as 5):\n%s", out)
	}

	// drain cordons a node and deletes its pods (the typed clientset sends
	// protobuf DeleteOptions); they come back elsewhere, and uncordon lets
	// pods onto it again.
	kubectl(t, kc, "drain", "node-1", "--ignore-daemonsets", "--timeout=60s")
	kubectl(t, kc, "rollout", "status", "deployment/myapp", "--timeout=90s")
	if out := kubectl(t, kc, "get", "pods", "--field-selector", "spec.nodeName=node-1", "-o", "name"); strings.TrimSpace(out) != "" {
		t.Fatalf("pods on the drained node:\n%s", out)
	}
	kubectl(t, kc, "scale", "deployment", "myapp", "--replicas=8")
	kubectl(t, kc, "rollout", "status", "deployment/myapp", "--timeout=90s")
	if out := kubectl(t, kc, "get", "pods", "--field-selector", "spec.nodeName=node-1", "-o", "name"); strings.TrimSpace(out) != "" {
		t.Fatalf("pods scheduled onto the cordoned node:\n%s", out)
	}
	kubectl(t, kc, "uncordon", "node-1")
	kubectl(t, kc, "scale", "deployment", "myapp", "--replicas=5")

	// apply again after an edit.
	edited := filepath.Join(dir, "my-app.yaml")
	data, err := os.ReadFile(filepath.Join("..", "..", "examples", "my-app.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(edited, bytes.Replace(data, []byte("replicas: 3"), []byte("replicas: 2"), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	if out := kubectl(t, kc, "apply", "-f", edited); !strings.Contains(out, "configured") {
		t.Fatalf("apply after edit: %s", out)
	}
	if out := kubectl(t, kc, "apply", "--server-side", "-f", "examples/my-service.yaml"); !strings.Contains(out, "serverside-applied") {
		t.Fatalf("apply --server-side: %s", out)
	}
	// Field ownership: another manager's server-side apply of a different
	// replicas value than client-side apply set is a conflict, until
	// forced. (kubectl's own manager may take over what its client-side
	// apply set, as in Kubernetes: see impl/apiserver's
	// TestKubectlServerSideApplyAfterClientSideApplyAndScale.)
	if out := kubectlFails(t, kc, "apply", "--server-side", "--field-manager=deployer", "-f", "examples/my-app.yaml"); !strings.Contains(out, `conflict with "kubectl-client-side-apply"`) {
		t.Fatalf("apply --server-side over a client-side apply did not conflict: %s", out)
	}
	kubectl(t, kc, "apply", "--server-side", "--field-manager=deployer", "--force-conflicts", "-f", "examples/my-app.yaml")

	// --cascade=orphan keeps the ReplicaSet (without its owner).
	other := filepath.Join(dir, "other.yaml")
	if err := os.WriteFile(other, bytes.ReplaceAll(data, []byte("myapp"), []byte("other")), 0o644); err != nil {
		t.Fatal(err)
	}
	kubectl(t, kc, "apply", "-f", other)
	kubectl(t, kc, "rollout", "status", "deployment/other", "--timeout=60s")
	podsBefore := kubectl(t, kc, "get", "pods", "-l", "app=other", "-o", "name")
	kubectl(t, kc, "delete", "deployment", "other", "--cascade=orphan", "--timeout=60s") // a hang fails in a minute
	if out := kubectl(t, kc, "get", "rs", "-l", "app=other", "-o", "jsonpath={.items[*].metadata.ownerReferences}"); strings.TrimSpace(out) != "" {
		t.Fatalf("orphaned ReplicaSet still has owners: %q", out)
	}
	if out := kubectl(t, kc, "get", "pods", "-l", "app=other", "-o", "name"); out != podsBefore || strings.TrimSpace(out) == "" {
		t.Fatalf("an orphan delete changed the pods:\nbefore:\n%s\nafter:\n%s", podsBefore, out)
	}
	kubectl(t, kc, "delete", "rs", "-l", "app=other", "--cascade=foreground")
	if out := kubectl(t, kc, "get", "pods,rs", "-l", "app=other", "-o", "name"); strings.TrimSpace(out) != "" {
		t.Fatalf("a foreground delete of the ReplicaSet, waited for by kubectl, left:\n%s", out)
	}

	// The typed-clientset commands send protobuf; the controllers act in
	// every namespace, so a Deployment in dev runs to Available.
	kubectl(t, kc, "create", "namespace", "dev")
	kubectl(t, kc, "-n", "dev", "apply", "-f", "examples/my-app.yaml") // the seed Deployment
	if out := kubectl(t, kc, "-n", "dev", "wait", "--for=condition=Available", "deployment/myapp", "--timeout=60s"); !strings.Contains(out, "condition met") {
		t.Fatalf("the seed Deployment in namespace dev: %s", out)
	}
	if out := kubectl(t, kc, "-n", "dev", "get", "pods", "-o", "name"); strings.Count(out, "pod/myapp-") != 3 {
		t.Fatalf("the seed Deployment's pods in namespace dev:\n%s", out)
	}
	if out := kubectl(t, kc, "get", "namespace", "dev", "-o", "jsonpath={.spec.finalizers}"); !strings.Contains(out, "kubernetes") {
		t.Fatalf("a new namespace carries the namespace controller's finalizer: %q", out)
	}
	// Deleting a namespace: the namespace controller empties it (the
	// Deployment, its ReplicaSet and pods), then lets it go; the system
	// ones stay.
	if out := kubectl(t, kc, "get", "namespaces"); !strings.Contains(out, "kube-system") || !strings.Contains(out, "dev ") {
		t.Fatalf("get namespaces:\n%s", out)
	}
	kubectl(t, kc, "delete", "namespace", "dev", "--timeout=60s")
	if out := kubectlFails(t, kc, "get", "namespace", "dev"); !strings.Contains(out, "NotFound") {
		t.Fatalf("namespace dev after its delete returned: %s", out)
	}
	if out := kubectl(t, kc, "get", "deployments,replicasets,pods", "-n", "dev", "-o", "name"); strings.TrimSpace(out) != "" {
		t.Fatalf("what deleted namespace dev held is still there:\n%s", out)
	}
	// A finalizer keeps its object, and the namespace Terminating, until
	// kubectl patch removes it; then the namespace controller lets the
	// namespace go.
	kubectl(t, kc, "create", "namespace", "held")
	kubectl(t, kc, "-n", "held", "create", "configmap", "c", "--from-literal=a=b")
	kubectl(t, kc, "-n", "held", "patch", "configmap", "c", "--type=merge", "-p", `{"metadata":{"finalizers":["example.com/hold"]}}`)
	kubectl(t, kc, "delete", "namespace", "held", "--wait=false")
	if out := kubectl(t, kc, "get", "namespace", "held"); !strings.Contains(out, "Terminating") {
		t.Fatalf("a namespace whose content a finalizer holds:\n%s", out)
	}
	if out := kubectlFails(t, kc, "-n", "held", "create", "configmap", "late"); !strings.Contains(out, "because it is being terminated") {
		t.Fatalf("create in a Terminating namespace: %s", out)
	}
	time.Sleep(time.Second) // the namespace controller retries meanwhile
	if out := kubectl(t, kc, "get", "namespace", "held"); !strings.Contains(out, "Terminating") {
		t.Fatalf("the namespace went while a finalizer held its content:\n%s", out)
	}
	kubectl(t, kc, "-n", "held", "patch", "configmap", "c", "--type=json", "-p", `[{"op":"remove","path":"/metadata/finalizers"}]`)
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		get := exec.Command(kubectlBin, "get", "namespace", "held")
		get.Env = append(os.Environ(), "KUBECONFIG="+kc)
		if out, err := get.CombinedOutput(); err != nil && strings.Contains(string(out), "NotFound") {
			break
		} else if time.Now().After(deadline) {
			t.Fatalf("the namespace stayed once its last object went: %v\n%s", err, out)
		}
	}
	if out := kubectlFails(t, kc, "delete", "namespace", "default"); !strings.Contains(out, "forbidden") {
		t.Fatalf("delete namespace default: %s", out)
	}
	kubectl(t, kc, "create", "deployment", "web", "--image=nginx:1.27", "--replicas=2", "--port=80")
	kubectl(t, kc, "create", "service", "clusterip", "web", "--tcp=80:80")
	kubectl(t, kc, "rollout", "status", "deployment/web", "--timeout=60s")
	foregroundDeleteHeldByAFinalizer(t, kc, "web")

	kubectl(t, kc, "delete", "deployment", "myapp")
	deadline = time.Now().Add(60 * time.Second)
	for strings.TrimSpace(kubectl(t, kc, "get", "pods,rs", "-o", "name")) != "" {
		if time.Now().After(deadline) {
			t.Fatal("the cascade did not finish")
		}
		time.Sleep(200 * time.Millisecond)
	}

	// Restart on the same data dir: nothing acknowledged is lost.
	stop()
	kc, stop = startUp(t, dir)
	if out := kubectl(t, kc, "get", "svc", "myapp", "-o", "name"); strings.TrimSpace(out) != "service/myapp" {
		t.Fatalf("after a restart: %q", out)
	}
}

// foregroundDeleteHeldByAFinalizer deletes a running Deployment with
// --cascade=foreground while a user's finalizer holds it: the garbage
// collector deletes its ReplicaSets and pods, and no controller replaces
// them, while the Deployment shows Terminating; once they are gone only
// the user's finalizer is left, and kubectl patch removing it lets the
// Deployment go.
func foregroundDeleteHeldByAFinalizer(t *testing.T, kc, name string) {
	t.Helper()
	names := func() map[string]bool {
		out := map[string]bool{}
		for _, n := range strings.Fields(kubectl(t, kc, "get", "pods,rs", "-l", "app="+name, "-o", "name")) {
			out[n] = true
		}
		return out
	}
	before := names()
	if len(before) == 0 {
		t.Fatalf("deployment %s has no pods or ReplicaSets to delete", name)
	}
	kubectl(t, kc, "patch", "deployment", name, "--type=merge", "-p", `{"metadata":{"finalizers":["example.com/hold"]}}`)
	kubectl(t, kc, "delete", "deployment", name, "--cascade=foreground", "--wait=false")
	if out := kubectl(t, kc, "get", "deployment", name); !strings.Contains(out, name) {
		t.Fatalf("the held Deployment is gone at once:\n%s", out)
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		now := names()
		for n := range now {
			if !before[n] {
				t.Fatalf("%s was created while its owner was being deleted in the foreground", n)
			}
		}
		if len(now) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("dependents still there: %v", now)
		}
		time.Sleep(100 * time.Millisecond)
	}
	// The garbage collector drops its finalizer once it sees the dependents gone.
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		meta := kubectl(t, kc, "get", "deployment", name, "-o", "jsonpath={.metadata.deletionTimestamp} {.metadata.finalizers}")
		if strings.Contains(meta, `["example.com/hold"]`) && !strings.HasPrefix(meta, " ") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a foreground-deleted Deployment whose dependents are gone, held by a user's finalizer: got %q, want a deletionTimestamp and only example.com/hold", meta)
		}
	}
	if out := kubectlFails(t, kc, "patch", "deployment", name, "--type=merge", "-p", `{"metadata":{"finalizers":["example.com/hold","example.com/other"]}}`); !strings.Contains(out, "no new finalizers can be added if the object is being deleted") {
		t.Fatalf("adding a finalizer to a Deployment being deleted: %s", out)
	}
	kubectl(t, kc, "patch", "deployment", name, "--type=json", "-p", `[{"op":"remove","path":"/metadata/finalizers"}]`)
	if out := kubectlFails(t, kc, "get", "deployment", name); !strings.Contains(out, "NotFound") {
		t.Fatalf("the Deployment stayed after its last finalizer went: %s", out)
	}
}
