package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const statefulSetManifest = `apiVersion: v1
kind: Service
metadata: {name: db}
spec:
  clusterIP: None
  selector: {app: db}
  ports: [{port: 6379}]
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db}
spec:
  serviceName: db
  replicas: 3
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec:
      containers:
      - name: redis
        image: redis:7
        volumeMounts: [{name: data, mountPath: /data}]
  volumeClaimTemplates:
  - metadata: {name: data}
    spec:
      accessModes: [ReadWriteOnce]
      resources: {requests: {storage: 1Gi}}
`

// TestKubectlStatefulSetAgainstConvergeUp: with the real kubectl against
// `converge up`, a StatefulSet gets its pods db-0..db-2, each with its
// hostname, subdomain, identity labels and its own claim data-db-<n>,
// reports them ready (kubectl rollout status reads its status), and keeps
// every claim through a scale down (Retain, the default).
func TestKubectlStatefulSetAgainstConvergeUp(t *testing.T) {
	needKubectl(t)
	dir := t.TempDir()
	kc, stop := startUp(t, dir)
	defer stop()
	manifest := filepath.Join(dir, "db.yaml")
	if err := os.WriteFile(manifest, []byte(statefulSetManifest), 0o600); err != nil {
		t.Fatal(err)
	}
	kubectl(t, kc, "apply", "-f", manifest)
	kubectl(t, kc, "rollout", "status", "statefulset/db", "--timeout=90s")

	out := kubectl(t, kc, "get", "pods", "-l", "app=db", "-o",
		`jsonpath={range .items[*]}{.metadata.name} {.spec.hostname}.{.spec.subdomain} {.metadata.labels.apps\.kubernetes\.io/pod-index} {.metadata.labels.statefulset\.kubernetes\.io/pod-name} {.spec.volumes[?(@.name=="data")].persistentVolumeClaim.claimName} {.status.phase}{"\n"}{end}`)
	want := "db-0 db-0.db 0 db-0 data-db-0 Running\ndb-1 db-1.db 1 db-1 data-db-1 Running\ndb-2 db-2.db 2 db-2 data-db-2 Running\n"
	if out != want {
		t.Fatalf("pods:\n%s\nwant:\n%s", out, want)
	}
	if out := kubectl(t, kc, "get", "statefulsets,pods,pvc"); !strings.Contains(out, "statefulset.apps/db   3/3") || !strings.Contains(out, "persistentvolumeclaim/data-db-2") {
		t.Fatalf("kubectl get statefulsets,pods,pvc:\n%s", out)
	}
	if rev := kubectl(t, kc, "get", "statefulset", "db", "-o", "jsonpath={.status.currentRevision}={.status.updateRevision}"); !strings.HasPrefix(rev, "db-") || strings.Split(rev, "=")[0] != strings.Split(rev, "=")[1] {
		t.Fatalf("revisions %q", rev)
	}

	kubectl(t, kc, "scale", "statefulset/db", "--replicas=1")
	deadline := time.Now().Add(60 * time.Second)
	for {
		pods := strings.Fields(kubectl(t, kc, "get", "pods", "-l", "app=db", "-o", "jsonpath={.items[*].metadata.name}"))
		if len(pods) == 1 && pods[0] == "db-0" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("pods after scaling to 1: %v", pods)
		}
		time.Sleep(200 * time.Millisecond)
	}
	if claims := kubectl(t, kc, "get", "pvc", "-o", "jsonpath={.items[*].metadata.name}"); claims != "data-db-0 data-db-1 data-db-2" {
		t.Fatalf("claims after the scale down: %q, want all three kept", claims)
	}
}
