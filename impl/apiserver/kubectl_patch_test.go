package apiserver

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/converge-dev/converge/impl/api"
)

// TestKubectlPatchesAndClientSideApply: kubectl's own patches, strategic
// (kubectl patch, set env, client-side apply's three-way patch with its
// $setElementOrder, $retainKeys and $patch: delete), merge and JSON, land
// as they would on kube-apiserver.
func TestKubectlPatchesAndClientSideApply(t *testing.T) {
	k := newKubectlEnv(t)
	dir := t.TempDir()
	manifest := func(spec string) string {
		p := filepath.Join(dir, "web.yaml")
		if err := os.WriteFile(p, []byte(`apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 1
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
`+spec), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	get := func() *api.Deployment {
		t.Helper()
		obj, err := k.reg.Get(context.Background(), "deployments", "default", "web")
		if err != nil {
			t.Fatal(err)
		}
		return obj.(*api.Deployment)
	}
	envOf := func(c api.Container) []string {
		var out []string
		for _, e := range c.Env {
			out = append(out, e.Name+"="+e.Value)
		}
		return out
	}

	k.run("apply", "-f", manifest(`      containers:
      - name: app
        image: app:1
        env:
        - {name: A, value: "1"}
        - {name: B, value: "2"}
        volumeMounts:
        - {name: data, mountPath: /data}
      - name: sidecar
        image: sidecar:1
      tolerations:
      - {key: k, operator: Exists}
      volumes:
      - name: data
        emptyDir: {}
`))

	// kubectl patch: tolerations are atomic, so the patch's replace them.
	k.run("patch", "deployment", "web", "-p", `{"spec":{"template":{"spec":{"tolerations":[{"key":"z","operator":"Exists"}]}}}}`)
	if tol := get().Spec.Template.Spec.Tolerations; len(tol) != 1 || tol[0].Key != "z" {
		t.Fatalf("tolerations after a strategic patch: %+v", tol)
	}
	// kubectl set env: a strategic patch keyed by env name, with
	// $setElementOrder; NAME- deletes with $patch: delete.
	k.run("set", "env", "deployment/web", "-c", "app", "C=3")
	k.run("set", "env", "deployment/web", "-c", "app", "A-")
	if env := envOf(get().Spec.Template.Spec.Containers[0]); !reflect.DeepEqual(env, []string{"B=2", "C=3"}) {
		t.Fatalf("env after kubectl set env: %v", env)
	}
	k.run("patch", "deployment", "web", "--type=json", "-p", `[{"op":"remove","path":"/spec/template/spec/containers/0/env/-1"}]`)
	k.run("patch", "deployment", "web", "--type=merge", "-p", `{"metadata":{"labels":{"tier":"front"}}}`)
	if d := get(); !reflect.DeepEqual(envOf(d.Spec.Template.Spec.Containers[0]), []string{"B=2"}) || d.Labels["tier"] != "front" {
		t.Fatalf("after JSON and merge patches: env %v labels %v", envOf(d.Spec.Template.Spec.Containers[0]), d.Labels)
	}
	// A JSON patch may replace a key the object lacks, as kube-apiserver's
	// json-patch lets it (kubectl rollout undo replaces annotations so).
	k.run("patch", "deployment", "web", "--type=json", "-p", `[{"op":"replace","path":"/spec/template/metadata/annotations","value":{"note":"x"}}]`)
	if a := get().Spec.Template.Annotations; a["note"] != "x" {
		t.Fatalf("template annotations after a JSON patch's replace of a missing key: %v", a)
	}

	// Client-side apply of a changed manifest: the sidecar goes, env B
	// goes and D comes, the volume's source changes (volumes retain keys,
	// so emptyDir must not survive beside configMap).
	if out := k.run("apply", "-f", manifest(`      containers:
      - name: app
        image: app:2
        env:
        - {name: D, value: "4"}
        volumeMounts:
        - {name: data, mountPath: /data}
      tolerations:
      - {key: k, operator: Exists}
      volumes:
      - name: data
        configMap: {name: cfg}
`)); !strings.Contains(out, "configured") {
		t.Fatalf("apply: %s", out)
	}
	spec := get().Spec.Template.Spec
	if len(spec.Containers) != 1 || spec.Containers[0].Image != "app:2" || !reflect.DeepEqual(envOf(spec.Containers[0]), []string{"D=4"}) {
		t.Fatalf("containers after apply: %+v", spec.Containers)
	}
	if len(spec.Volumes) != 1 || spec.Volumes[0].EmptyDir != nil || spec.Volumes[0].ConfigMap == nil || spec.Volumes[0].ConfigMap.Name != "cfg" {
		t.Fatalf("volumes after apply: %+v", spec.Volumes)
	}
	if len(spec.Tolerations) != 1 || spec.Tolerations[0].Key != "k" {
		t.Fatalf("tolerations after apply: %+v", spec.Tolerations)
	}
	if out := k.run("apply", "-f", filepath.Join(dir, "web.yaml")); !strings.Contains(out, "unchanged") {
		t.Fatalf("apply again: %s", out)
	}

	// A strategic patch without a list element's merge key is refused.
	out, err := k.try("patch", "deployment", "web", "-p", `{"spec":{"template":{"spec":{"containers":[{"image":"x"}]}}}}`)
	if err == nil || !strings.Contains(out, "does not contain declared merge key: name") {
		t.Fatalf("patch without a merge key: %v\n%s", err, out)
	}
}
