package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestUpHoldsASchedulingGatedPod: with the real kubectl, a pod created with
// a scheduling gate stays unbound, shown as SchedulingGated, while a pod
// created after it runs; a new gate is refused as upstream refuses it; once
// the gate is removed, the pod is scheduled and runs. Fields the model does not act on (pod-level
// resources) are served back as sent, and a client's selfLink is dropped.
func TestUpHoldsASchedulingGatedPod(t *testing.T) {
	needKubectl(t)
	kc, stop := startUpWith(t, upFlags{dataDir: t.TempDir(), listen: "127.0.0.1:0", nodes: 1, tick: 200 * time.Millisecond, quiet: true})
	defer stop()
	manifest := filepath.Join(t.TempDir(), "pods.yaml")
	pods := `apiVersion: v1
kind: Pod
metadata:
  name: gated
  selfLink: /api/v1/namespaces/default/pods/gated
spec:
  schedulingGates:
  - name: example.com/quota
  resources:
    requests: {cpu: 100m}
  containers:
  - {name: app, image: nginx:1.27}
---
apiVersion: v1
kind: Pod
metadata:
  name: free
spec:
  containers:
  - {name: app, image: nginx:1.27}
`
	if err := os.WriteFile(manifest, []byte(pods), 0o600); err != nil {
		t.Fatal(err)
	}
	kubectl(t, kc, "apply", "-f", manifest)
	kubectl(t, kc, "wait", "--for=jsonpath={.status.phase}=Running", "pod/free", "--timeout=20s")
	got := kubectl(t, kc, "get", "pod", "gated", "-o",
		`jsonpath={.spec.nodeName}|{.status.phase}|{.spec.schedulingGates[0].name}|{.spec.resources.requests.cpu}|{.metadata.selfLink}`)
	if want := "|Pending|example.com/quota|100m|"; got != want {
		t.Fatalf("the gated pod, after a later pod runs: got %q, want %q (nodeName|phase|gate|pod cpu|selfLink)", got, want)
	}
	if row := kubectl(t, kc, "get", "pod", "gated", "--no-headers"); !strings.Contains(row, " SchedulingGated ") {
		t.Fatalf("kubectl get pod gated: %q, want the status SchedulingGated", row)
	}
	out := kubectlFails(t, kc, "patch", "pod", "gated", "--type=json", "-p", `[{"op":"add","path":"/spec/schedulingGates/-","value":{"name":"example.com/more"}}]`)
	if !strings.Contains(out, "only deletion is allowed, but found new scheduling gate 'example.com/more'") {
		t.Fatalf("adding a gate: %s", out)
	}
	kubectl(t, kc, "patch", "pod", "gated", "--type=json", "-p", `[{"op":"remove","path":"/spec/schedulingGates"}]`)
	kubectl(t, kc, "wait", "--for=jsonpath={.status.phase}=Running", "pod/gated", "--timeout=20s")
	if got := kubectl(t, kc, "get", "pod", "gated", "-o", `jsonpath={.status.conditions[?(@.type=="PodScheduled")].status}`); got != "True" {
		t.Fatalf("PodScheduled once bound: %q", got)
	}
}
