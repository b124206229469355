package apiserver

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"

	"github.com/converge-dev/converge/impl/api"
)

const (
	cmPath    = "/api/v1/namespaces/default/configmaps"
	secPath   = "/api/v1/namespaces/default/secrets"
	saPath    = "/api/v1/namespaces/default/serviceaccounts"
	leasePath = "/apis/coordination.k8s.io/v1/namespaces/default/leases"
)

// TestStoredKindsCRUD: each stored-only kind is created, read, listed,
// watched, patched three ways, applied and deleted as Kubernetes does it.
func TestStoredKindsCRUD(t *testing.T) {
	e := newEnv(t)
	e.must(201, "POST", cmPath, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cfg"},"data":{"a.conf":"x=1"},"binaryData":{"b.bin":"AAEC"}}`)
	var cm api.ConfigMap
	e.must(200, "GET", cmPath+"/cfg", "").into(t, &cm)
	if cm.Data["a.conf"] != "x=1" || string(cm.BinaryData["b.bin"]) != "\x00\x01\x02" || cm.UID == "" {
		t.Fatalf("configmap read back %+v", cm)
	}
	e.must(200, "PATCH", cmPath+"/cfg", `{"data":{"c":"3"}}`, "Content-Type: "+mergePatchType)
	e.must(200, "PATCH", cmPath+"/cfg", `{"data":{"d":"4"}}`, "Content-Type: "+strategicPatchType)
	e.must(200, "PATCH", cmPath+"/cfg", `[{"op":"remove","path":"/data/c"}]`, "Content-Type: "+jsonPatchType)
	e.must(200, "GET", cmPath+"/cfg", "").into(t, &cm)
	if _, gone := cm.Data["c"]; gone || cm.Data["d"] != "4" || cm.Data["a.conf"] != "x=1" {
		t.Fatalf("patched configmap %v", cm.Data)
	}

	// stringData is merged into data and not stored; type defaults to Opaque.
	e.must(201, "POST", secPath, `{"apiVersion":"v1","kind":"Secret","metadata":{"name":"s"},"data":{"u":"`+base64.StdEncoding.EncodeToString([]byte("old"))+`"},"stringData":{"u":"root","p":"pw"}}`)
	r := e.must(200, "GET", secPath+"/s", "")
	var sec api.Secret
	r.into(t, &sec)
	var top map[string]any
	r.into(t, &top)
	if _, kept := top["stringData"]; kept || string(sec.Data["u"]) != "root" || string(sec.Data["p"]) != "pw" || sec.Type != "Opaque" {
		t.Fatalf("secret read back %s", r.body)
	}

	e.must(201, "POST", saPath, `{"apiVersion":"v1","kind":"ServiceAccount","metadata":{"name":"builder"},"imagePullSecrets":[{"name":"reg"}]}`)
	var sa api.ServiceAccount
	e.must(200, "GET", saPath+"/builder", "").into(t, &sa)
	if len(sa.ImagePullSecrets) != 1 || sa.ImagePullSecrets[0].Name != "reg" {
		t.Fatalf("serviceaccount %+v", sa)
	}

	lease := `{"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":"leader"},"spec":{"holderIdentity":"a","leaseDurationSeconds":15,"acquireTime":"2026-01-02T03:04:05.123456Z","renewTime":"2026-01-02T03:04:06.654321Z","leaseTransitions":0}}`
	e.must(201, "POST", leasePath, lease)
	r = e.must(200, "GET", leasePath+"/leader", "")
	var l api.Lease
	r.into(t, &l)
	if l.Spec.HolderIdentity == nil || *l.Spec.HolderIdentity != "a" || !strings.Contains(string(r.body), `"renewTime":"2026-01-02T03:04:06.654321Z"`) {
		t.Fatalf("lease read back %s", r.body)
	}
	// Leader election renews with a PUT at the read resourceVersion; a
	// stale one is 409.
	l.Spec.HolderIdentity = ptrTo("b")
	b, _ := json.Marshal(l)
	e.must(200, "PUT", leasePath+"/leader", string(b))
	e.must(409, "PUT", leasePath+"/leader", string(b))

	// Server-side apply of a Lease: create, then a conflict on a field
	// another manager owns.
	e.must(201, "PATCH", leasePath+"/applied?fieldManager=one", `{"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":"applied"},"spec":{"holderIdentity":"one"}}`, "Content-Type: "+applyPatchType)
	e.must(409, "PATCH", leasePath+"/applied?fieldManager=two", `{"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":"applied"},"spec":{"holderIdentity":"two"}}`, "Content-Type: "+applyPatchType)

	var list api.LeaseList
	e.must(200, "GET", "/apis/coordination.k8s.io/v1/leases", "").into(t, &list)
	if len(list.Items) != 2 || list.Kind != "LeaseList" {
		t.Fatalf("lease list %+v", list)
	}
	w := e.watch(cmPath + "?watch=true")
	var got api.ConfigMap
	if typ := w.next(&got); typ != api.EventAdded || got.Name != "cfg" {
		t.Fatalf("watch %s %s", typ, got.Name)
	}
	e.must(200, "DELETE", cmPath+"/cfg", "")
	if typ := w.next(&got); typ != api.EventDeleted {
		t.Fatalf("watch %s", typ)
	}
}

func ptrTo[T any](v T) *T { return &v }

// storedBadRequests are the stored kinds' writes Kubernetes refuses.
func storedBadRequests() []badRequest {
	return []badRequest{
		{name: "configmap key syntax", method: "POST", path: cmPath, body: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"bad"},"data":{"a/b":"x"}}`,
			code: 422, reason: api.StatusReasonInvalid, msg: "data[a/b]: Invalid value"},
		{name: "configmap key in data and binaryData", method: "POST", path: cmPath, body: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"dup"},"data":{"k":"x"},"binaryData":{"k":"eA=="}}`,
			code: 422, reason: api.StatusReasonInvalid, msg: "duplicate of key present in data"},
		{name: "configmap unknown field", method: "POST", path: cmPath + "?fieldValidation=Strict", body: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"u"},"datum":{}}`,
			code: 400, reason: api.StatusReasonBadRequest},
		{name: "tls secret without its keys", method: "POST", path: secPath, body: `{"apiVersion":"v1","kind":"Secret","metadata":{"name":"tls"},"type":"kubernetes.io/tls"}`,
			code: 422, reason: api.StatusReasonInvalid, msg: "data[tls.crt]: Required value"},
		{name: "lease with a zero duration", method: "POST", path: leasePath, body: `{"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":"z"},"spec":{"leaseDurationSeconds":0}}`,
			code: 422, reason: api.StatusReasonInvalid, msg: "spec.leaseDurationSeconds"},
		{name: "lease in the core group", method: "GET", path: "/api/v1/namespaces/default/leases", code: 404, reason: api.StatusReasonNotFound},
		{name: "serviceaccount bad name", method: "POST", path: saPath, body: `{"apiVersion":"v1","kind":"ServiceAccount","metadata":{"name":"Bad_Name"}}`,
			code: 422, reason: api.StatusReasonInvalid, msg: "metadata.name"},
	}
}

// TestImmutableConfigMapAndSecret: data cannot change once immutable is
// set, nor can immutable be unset; a Secret's type never changes.
func TestImmutableConfigMapAndSecret(t *testing.T) {
	e := newEnv(t)
	e.must(201, "POST", cmPath, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"frozen"},"immutable":true,"data":{"a":"1"}}`)
	r := e.must(422, "PATCH", cmPath+"/frozen", `{"data":{"a":"2"}}`, "Content-Type: "+mergePatchType)
	if st := r.status(t); !strings.Contains(st.Message, "data: Forbidden: field is immutable when `immutable` is set") {
		t.Fatalf("message %q", st.Message)
	}
	e.must(422, "PATCH", cmPath+"/frozen", `{"immutable":false}`, "Content-Type: "+mergePatchType)
	e.must(200, "PATCH", cmPath+"/frozen", `{"metadata":{"labels":{"ok":"yes"}}}`, "Content-Type: "+mergePatchType)
	e.must(201, "POST", secPath, `{"apiVersion":"v1","kind":"Secret","metadata":{"name":"s"},"stringData":{"a":"1"}}`)
	e.must(422, "PATCH", secPath+"/s", `{"type":"kubernetes.io/basic-auth","stringData":{"username":"u"}}`, "Content-Type: "+mergePatchType)
}

// TestStoredKindsDiscoveryOpenAPIAndTables: discovery lists the kinds,
// the OpenAPI documents describe them, and tables print their columns.
func TestStoredKindsDiscoveryOpenAPIAndTables(t *testing.T) {
	e := newEnv(t)
	var groups struct {
		Groups []struct{ Name string } `json:"groups"`
	}
	e.must(200, "GET", "/apis", "").into(t, &groups)
	found := false
	for _, g := range groups.Groups {
		found = found || g.Name == "coordination.k8s.io"
	}
	if !found {
		t.Fatalf("/apis lacks coordination.k8s.io: %+v", groups)
	}
	var rl struct {
		Resources []struct{ Name, Kind string } `json:"resources"`
	}
	e.must(200, "GET", "/apis/coordination.k8s.io/v1", "").into(t, &rl)
	if len(rl.Resources) != 1 || rl.Resources[0].Kind != "Lease" {
		t.Fatalf("coordination.k8s.io/v1: %+v", rl)
	}
	core := string(e.must(200, "GET", "/api/v1", "").body)
	for _, r := range []string{`"configmaps"`, `"secrets"`, `"serviceaccounts"`} {
		if !strings.Contains(core, r) {
			t.Fatalf("/api/v1 lacks %s", r)
		}
	}
	doc := string(e.must(200, "GET", "/openapi/v3/apis/coordination.k8s.io/v1", "").body)
	for _, want := range []string{`"io.k8s.api.coordination.v1.Lease"`, `"io.k8s.api.coordination.v1.LeaseSpec"`, `"io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime":{"format":"date-time","type":"string"}`} {
		if !strings.Contains(doc, want) {
			t.Fatalf("openapi lacks %s", want)
		}
	}
	e.must(201, "POST", secPath, `{"apiVersion":"v1","kind":"Secret","metadata":{"name":"s"},"stringData":{"a":"1","b":"2"}}`)
	tab := string(e.must(200, "GET", secPath, "", "Accept: application/json;as=Table;v=v1;g=meta.k8s.io").body)
	if !strings.Contains(tab, `"cells":["s","Opaque",2,`) {
		t.Fatalf("secret table %s", tab)
	}
}

// TestStoredKindsFromProtobuf: a typed client's protobuf ConfigMap is
// stored as its JSON would be.
func TestStoredKindsFromProtobuf(t *testing.T) {
	e := newEnv(t)
	cm := &corev1.ConfigMap{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{Name: "pb", Labels: map[string]string{"a": "b"}}, Data: map[string]string{"k": "v"}}
	var buf bytes.Buffer
	if err := protobuf.NewSerializer(nil, nil).Encode(cm, &buf); err != nil {
		t.Fatal(err)
	}
	e.must(201, "POST", cmPath, buf.String(), "Content-Type: "+protobufType)
	var got api.ConfigMap
	e.must(200, "GET", cmPath+"/pb", "").into(t, &got)
	if got.Data["k"] != "v" || got.Labels["a"] != "b" || got.CreationTimestamp.IsZero() {
		t.Fatalf("read back %+v", got)
	}
}
