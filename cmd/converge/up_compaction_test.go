package main

import (
	"strings"
	"testing"
	"time"
)

// TestUpCompactsEtcdHistory: with --etcd-compaction-interval, converge up
// compacts etcd as kube-apiserver does, so a watch from a resourceVersion
// older than the interval gets 410 Gone ("too old resource version"), and
// one from now on does not.
func TestUpCompactsEtcdHistory(t *testing.T) {
	needKubectl(t)
	kc, stop := startUpWith(t, upFlags{dataDir: t.TempDir(), listen: "127.0.0.1:0", nodes: 1, tick: 200 * time.Millisecond,
		quiet: true, events: true, compactEvery: 100 * time.Millisecond})
	defer stop()
	kubectl(t, kc, "create", "configmap", "history", "--from-literal=v=0")
	old := strings.TrimSpace(kubectl(t, kc, "get", "configmap", "history", "-o", "jsonpath={.metadata.resourceVersion}"))
	watch := func(rv string) string {
		return kubectl(t, kc, "get", "--raw", "/api/v1/namespaces/default/configmaps?watch=1&timeoutSeconds=1&resourceVersion="+rv)
	}
	deadline := time.Now().Add(30 * time.Second)
	for n := 1; ; n++ {
		kubectl(t, kc, "patch", "configmap", "history", "-p", `{"data":{"v":"`+strings.Repeat("x", n)+`"}}`)
		if out := watch(old); strings.Contains(out, `"code":410`) {
			break
		} else if time.Now().After(deadline) {
			t.Fatalf("a watch from resourceVersion %s still works after 30 s of compaction every 100 ms:\n%s", old, out)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if out := watch(""); strings.Contains(out, `"code":410`) {
		t.Errorf("a watch from now on got 410:\n%s", out)
	}
}
