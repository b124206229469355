package apiserver

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"

	"github.com/converge-dev/converge/impl/api"
)

const (
	pvcPath = "/api/v1/namespaces/default/persistentvolumeclaims"
	stsPath = "/apis/apps/v1/namespaces/default/statefulsets"
	dsPath  = "/apis/apps/v1/namespaces/default/daemonsets"
	jobPath = "/apis/batch/v1/namespaces/default/jobs"

	stsBody = `{"apiVersion":"apps/v1","kind":"StatefulSet","metadata":{"name":"db"},"spec":{"serviceName":"db","replicas":2,"selector":{"matchLabels":{"app":"db"}},"template":{"metadata":{"labels":{"app":"db"}},"spec":{"containers":[{"name":"db","image":"postgres:16"}]}},"volumeClaimTemplates":[{"metadata":{"name":"data"},"spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1Gi"}}}}]}}`
	dsBody  = `{"apiVersion":"apps/v1","kind":"DaemonSet","metadata":{"name":"agent"},"spec":{"selector":{"matchLabels":{"app":"agent"}},"template":{"metadata":{"labels":{"app":"agent"}},"spec":{"tolerations":[{"operator":"Exists"}],"containers":[{"name":"agent","image":"agent:1"}]}}}}`
	jobBody = `{"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"pi"},"spec":{"completions":3,"backoffLimit":2,"template":{"spec":{"restartPolicy":"Never","containers":[{"name":"pi","image":"perl:5.34"}]}}}}`
	pvcBody = `{"apiVersion":"v1","kind":"PersistentVolumeClaim","metadata":{"name":"data"},"spec":{"accessModes":["ReadWriteOnce"],"storageClassName":"standard","resources":{"requests":{"storage":"5Gi"}}}}`
)

// TestStoredWorkloadsCRUD: each stored workload kind is created with its
// status dropped, its spec written through the object and its status
// through /status only, patched, listed, watched and deleted; a
// StatefulSet scales through /scale.
func TestStoredWorkloadsCRUD(t *testing.T) {
	e := newEnv(t)
	withStatus := func(body, status string) string {
		return strings.TrimSuffix(body, "}") + `,"status":` + status + `}`
	}
	e.must(201, "POST", stsPath, withStatus(stsBody, `{"replicas":7,"readyReplicas":7}`))
	e.must(201, "POST", dsPath, dsBody)
	e.must(201, "POST", jobPath, jobBody)
	e.must(201, "POST", pvcPath, withStatus(pvcBody, `{"phase":"Bound"}`))

	var sts api.StatefulSet
	e.must(200, "GET", stsPath+"/db", "").into(t, &sts)
	if sts.Status.Replicas != 0 || sts.Generation != 1 || *sts.Spec.Replicas != 2 || sts.Spec.VolumeClaimTemplates[0].Kind != "PersistentVolumeClaim" {
		t.Fatalf("statefulset read back %+v", sts)
	}
	var pvc api.PersistentVolumeClaim
	e.must(200, "GET", pvcPath+"/data", "").into(t, &pvc)
	if pvc.Status.Phase != corev1.ClaimPending || *pvc.Spec.StorageClassName != "standard" {
		t.Fatalf("pvc read back %+v", pvc)
	}

	// The status subresource writes status only; the object keeps it.
	e.must(200, "PATCH", stsPath+"/db/status", `{"status":{"replicas":2,"readyReplicas":1}}`, "Content-Type: "+mergePatchType)
	e.must(200, "PATCH", stsPath+"/db", `{"spec":{"template":{"metadata":{"annotations":{"rev":"2"}}}},"status":{"readyReplicas":9}}`, "Content-Type: "+strategicPatchType)
	e.must(200, "GET", stsPath+"/db", "").into(t, &sts)
	if sts.Status.ReadyReplicas != 1 || sts.Generation != 2 || sts.Spec.Template.Annotations["rev"] != "2" {
		t.Fatalf("statefulset after status and spec patches: gen %d status %+v", sts.Generation, sts.Status)
	}
	tab := string(e.must(200, "GET", stsPath, "", "Accept: application/json;as=Table;v=v1;g=meta.k8s.io").body)
	if !strings.Contains(tab, `"cells":["db","1/2",`) {
		t.Fatalf("statefulset table %s", tab)
	}

	// Scale reads and writes spec.replicas; its selector is the set's.
	var sc api.Scale
	e.must(200, "GET", stsPath+"/db/scale", "").into(t, &sc)
	if sc.Spec.Replicas != 2 || sc.Status.Selector != "app=db" || sc.Status.Replicas != 2 {
		t.Fatalf("scale %+v", sc)
	}
	e.must(200, "PATCH", stsPath+"/db/scale", `{"spec":{"replicas":4}}`, "Content-Type: "+mergePatchType)
	e.must(200, "GET", stsPath+"/db", "").into(t, &sts)
	if *sts.Spec.Replicas != 4 {
		t.Fatalf("scaled to %d", *sts.Spec.Replicas)
	}
	e.must(404, "GET", dsPath+"/agent/scale", "")

	// A Job's status: a watcher sees the write, the table its columns.
	w := e.watch(jobPath + "?watch=true")
	var job api.Job
	if typ := w.next(&job); typ != api.EventAdded || job.Spec.Selector == nil {
		t.Fatalf("watch %s %+v", typ, job.Spec)
	}
	e.must(200, "PATCH", jobPath+"/pi/status", `{"status":{"succeeded":3,"startTime":"2026-01-02T03:04:05Z","completionTime":"2026-01-02T03:06:05Z","conditions":[{"type":"Complete","status":"True"}]}}`, "Content-Type: "+mergePatchType)
	if typ := w.next(&job); typ != api.EventModified || job.Status.Succeeded != 3 {
		t.Fatalf("watch %s %+v", typ, job.Status)
	}
	tab = string(e.must(200, "GET", jobPath, "", "Accept: application/json;as=Table;v=v1;g=meta.k8s.io").body)
	if !strings.Contains(tab, `"cells":["pi","Complete","3/3","2m",`) {
		t.Fatalf("job table %s", tab)
	}

	// Server-side apply of a DaemonSet, then a conflicting manager.
	e.must(201, "PATCH", dsPath+"/applied?fieldManager=one", strings.Replace(dsBody, `"agent"}`, `"applied"}`, 1), "Content-Type: "+applyPatchType)
	e.must(409, "PATCH", dsPath+"/applied?fieldManager=two", strings.Replace(strings.Replace(dsBody, `"agent"}`, `"applied"}`, 1), "agent:1", "agent:2", 1), "Content-Type: "+applyPatchType)
	var dsl api.DaemonSetList
	e.must(200, "GET", "/apis/apps/v1/daemonsets", "").into(t, &dsl)
	if len(dsl.Items) != 2 || dsl.Kind != "DaemonSetList" || len(dsl.Items[0].Spec.Template.Spec.Tolerations) != 1 {
		t.Fatalf("daemonset list %+v", dsl)
	}
	e.must(200, "DELETE", jobPath+"/pi", "")
	e.must(404, "GET", jobPath+"/pi", "")
}

// TestStoredWorkloadUpdatesRefused: fields upstream freezes stay frozen.
func TestStoredWorkloadUpdatesRefused(t *testing.T) {
	e := newEnv(t)
	e.must(201, "POST", stsPath, stsBody)
	r := e.must(422, "PATCH", stsPath+"/db", `{"spec":{"serviceName":"other"}}`, "Content-Type: "+mergePatchType)
	if st := r.status(t); !strings.Contains(st.Message, "spec: Forbidden: updates to statefulset spec for fields other than 'replicas'") {
		t.Fatalf("message %q", st.Message)
	}
	e.must(201, "POST", pvcPath, pvcBody)
	e.must(200, "PATCH", pvcPath+"/data", `{"spec":{"resources":{"requests":{"storage":"10Gi"}}}}`, "Content-Type: "+mergePatchType)
	e.must(422, "PATCH", pvcPath+"/data", `{"spec":{"storageClassName":"fast"}}`, "Content-Type: "+mergePatchType)
	e.must(201, "POST", jobPath, jobBody)
	e.must(422, "PATCH", jobPath+"/pi", `{"spec":{"selector":{"matchLabels":{"a":"b"}}}}`, "Content-Type: "+mergePatchType)
}

// workloadBadRequests are the stored workload kinds' writes Kubernetes
// refuses, with its field paths.
func workloadBadRequests() []badRequest {
	return []badRequest{
		{name: "statefulset selector not matching its template", method: "POST", path: stsPath,
			body: strings.Replace(stsBody, `"matchLabels":{"app":"db"}`, `"matchLabels":{"app":"web"}`, 1),
			code: 422, reason: api.StatusReasonInvalid, msg: "spec.template.metadata.labels: Invalid value: {\"app\":\"db\"}: `selector` does not match template `labels`"},
		{name: "statefulset claim template without access modes", method: "POST", path: stsPath,
			body: strings.Replace(stsBody, `"accessModes":["ReadWriteOnce"],`, "", 1),
			code: 422, reason: api.StatusReasonInvalid, msg: "spec.volumeClaimTemplates[0].spec.accessModes: Required value"},
		{name: "daemonset without selector", method: "POST", path: dsPath,
			body: strings.Replace(dsBody, `"selector":{"matchLabels":{"app":"agent"}},`, "", 1),
			code: 422, reason: api.StatusReasonInvalid, msg: "spec.selector: Required value"},
		{name: "daemonset pods that do not restart", method: "POST", path: dsPath,
			body: strings.Replace(dsBody, `"tolerations"`, `"restartPolicy":"OnFailure","tolerations"`, 1),
			code: 422, reason: api.StatusReasonInvalid, msg: `spec.template.spec.restartPolicy: Unsupported value: "OnFailure": supported values: "Always"`},
		{name: "job restarting Always", method: "POST", path: jobPath,
			body: strings.Replace(jobBody, `"restartPolicy":"Never",`, "", 1),
			code: 422, reason: api.StatusReasonInvalid, msg: `spec.template.spec.restartPolicy: Unsupported value: "Always": supported values: "OnFailure", "Never"`},
		{name: "job with a selector not generated", method: "POST", path: jobPath,
			body: strings.Replace(jobBody, `"completions":3,`, `"completions":3,"selector":{"matchLabels":{"app":"pi"}},`, 1),
			code: 422, reason: api.StatusReasonInvalid, msg: "spec.selector: Invalid value"},
		{name: "pvc without a storage request", method: "POST", path: pvcPath,
			body: strings.Replace(pvcBody, `"resources":{"requests":{"storage":"5Gi"}}`, `"resources":{}`, 1),
			code: 422, reason: api.StatusReasonInvalid, msg: "spec.resources[storage]: Required value"},
		{name: "pvc unknown field", method: "POST", path: pvcPath + "?fieldValidation=Strict", body: strings.Replace(pvcBody, `"storageClassName"`, `"storageClass"`, 1),
			code: 400, reason: api.StatusReasonBadRequest},
		{name: "statefulset in the core group", method: "GET", path: "/api/v1/namespaces/default/statefulsets", code: 404, reason: api.StatusReasonNotFound},
		{name: "job scale", method: "GET", path: jobPath + "/pi/scale", code: 404, reason: api.StatusReasonNotFound},
	}
}

// TestStoredWorkloadsFromProtobuf: a typed client's protobuf StatefulSet
// is stored as its JSON would be.
func TestStoredWorkloadsFromProtobuf(t *testing.T) {
	e := newEnv(t)
	var in appsv1.StatefulSet
	if err := json.Unmarshal([]byte(stsBody), &in); err != nil {
		t.Fatal(err)
	}
	in.TypeMeta = metav1.TypeMeta{APIVersion: "apps/v1", Kind: "StatefulSet"}
	var buf bytes.Buffer
	if err := protobuf.NewSerializer(nil, nil).Encode(&in, &buf); err != nil {
		t.Fatal(err)
	}
	e.must(201, "POST", stsPath, buf.String(), "Content-Type: "+protobufType)
	var got api.StatefulSet
	e.must(200, "GET", stsPath+"/db", "").into(t, &got)
	if got.Spec.ServiceName != "db" || got.Spec.VolumeClaimTemplates[0].Spec.Resources.Requests.Storage().String() != "1Gi" {
		t.Fatalf("read back %+v", got.Spec)
	}
}

// TestStoredWorkloadsDiscoveryAndOpenAPI: batch/v1 is a group of its own;
// the documents describe k8s.io/api's full types, with their merge keys.
func TestStoredWorkloadsDiscoveryAndOpenAPI(t *testing.T) {
	e := newEnv(t)
	var rl struct {
		Resources []struct {
			Name       string   `json:"name"`
			Categories []string `json:"categories"`
		} `json:"resources"`
	}
	e.must(200, "GET", "/apis/batch/v1", "").into(t, &rl)
	if len(rl.Resources) != 4 || rl.Resources[0].Name != "jobs" || rl.Resources[1].Name != "jobs/status" || rl.Resources[0].Categories[0] != "all" ||
		rl.Resources[2].Name != "cronjobs" {
		t.Fatalf("batch/v1: %+v", rl)
	}
	apps := string(e.must(200, "GET", "/apis/apps/v1", "").body)
	for _, r := range []string{`"statefulsets/scale"`, `"daemonsets/status"`, `"sts"`, `"ds"`} {
		if !strings.Contains(apps, r) {
			t.Fatalf("apps/v1 lacks %s", r)
		}
	}
	doc := string(e.must(200, "GET", "/openapi/v3/apis/apps/v1", "").body)
	for _, want := range []string{`"io.k8s.api.apps.v1.StatefulSetSpec"`, `"x-kubernetes-patch-merge-key":"name"`, `"io.k8s.api.core.v1.HostPathVolumeSource"`,
		`"io.k8s.apimachinery.pkg.api.resource.Quantity":{"type":"string"}`} {
		if !strings.Contains(doc, want) {
			t.Fatalf("apps/v1 openapi lacks %s", want)
		}
	}
}
