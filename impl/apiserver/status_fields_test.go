package apiserver

import (
	"strings"
	"testing"

	"github.com/converge-dev/converge/impl/api"
)

const depPath = "/apis/apps/v1/namespaces/default/deployments"

const statusDeployment = `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},
"spec":{"replicas":2,"selector":{"matchLabels":{"app":"web"}},
"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"web","image":"nginx:1.27"}]}}}}`

// managersOf is each managedFields entry as manager/operation/subresource.
func managersOf(d api.Deployment) string {
	var b strings.Builder
	for _, e := range d.ManagedFields {
		b.WriteString(e.Manager + "/" + string(e.Operation) + "/" + e.Subresource + ";")
	}
	return b.String()
}

func entryOf(d api.Deployment, manager, subresource string) string {
	for _, e := range d.ManagedFields {
		if e.Manager == manager && e.Subresource == subresource {
			return e.FieldsV1.String()
		}
	}
	return ""
}

// TestStatusWritesRecordTheirOwnManager: as in Kubernetes, a write through
// the status subresource (PUT or PATCH) is recorded as its manager's
// Update with subresource "status", owning only status fields, and the
// main resource's managers stay.
func TestStatusWritesRecordTheirOwnManager(t *testing.T) {
	e := newEnv(t)
	var d api.Deployment
	e.must(201, "POST", depPath+"?fieldManager=creator", statusDeployment).into(t, &d)
	d.Status.ObservedGeneration, d.Status.Replicas = 1, 2
	body, err := api.Marshal(&d)
	if err != nil {
		t.Fatal(err)
	}
	e.must(200, "PUT", depPath+"/web/status?fieldManager=ctrl", string(body)).into(t, &d)
	if got := managersOf(d); got != "creator/Update/;ctrl/Update/status;" {
		t.Fatalf("managers after a status PUT: %s", got)
	}
	if f := entryOf(d, "ctrl", "status"); !strings.Contains(f, "f:observedGeneration") || strings.Contains(f, "f:spec") {
		t.Errorf("the status writer owns %s", f)
	}
	if f := entryOf(d, "creator", ""); strings.Contains(f, "f:status") {
		t.Errorf("the creator owns status: %s", f)
	}
	e.must(200, "PATCH", depPath+"/web/status?fieldManager=other", `{"status":{"replicas":3}}`,
		"Content-Type: "+mergePatchType).into(t, &d)
	if f := entryOf(d, "other", "status"); !strings.Contains(f, "f:replicas") {
		t.Errorf("the status patcher owns %s (managers %s)", f, managersOf(d))
	}
	if f := entryOf(d, "ctrl", "status"); strings.Contains(f, "f:replicas") || !strings.Contains(f, "f:observedGeneration") {
		t.Errorf("after the patch the first status writer owns %s", f)
	}
	if *d.Spec.Replicas != 2 {
		t.Errorf("spec changed through status: %d", *d.Spec.Replicas)
	}
}

// TestServerSideApplyToStatus: an apply to the status subresource, as
// controller-runtime's Status().Patch(ctx, obj, client.Apply) sends it,
// sets status only, records an Apply entry with subresource "status", and
// conflicts with another applier of the same field until forced. It
// cannot create the object.
func TestServerSideApplyToStatus(t *testing.T) {
	e := newEnv(t)
	e.must(201, "POST", depPath+"?fieldManager=creator", statusDeployment)
	apply := func(manager, replicas, extra string) response {
		return e.do("PATCH", depPath+"/web/status?fieldManager="+manager+extra,
			`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},"spec":{"replicas":9},"status":{"readyReplicas":`+replicas+`}}`,
			"Content-Type: "+applyPatchType)
	}
	var d api.Deployment
	if r := apply("ctrl", "1", ""); r.code != 200 {
		t.Fatalf("apply to status: %d %s", r.code, r.body)
	} else {
		r.into(t, &d)
	}
	if d.Status.ReadyReplicas != 1 || *d.Spec.Replicas != 2 {
		t.Fatalf("status %+v, spec.replicas %d: want readyReplicas 1 and the spec untouched", d.Status, *d.Spec.Replicas)
	}
	if f := entryOf(d, "ctrl", "status"); !strings.Contains(f, "f:readyReplicas") || strings.Contains(f, "f:spec") {
		t.Errorf("the status applier owns %s (managers %s)", f, managersOf(d))
	}
	r := apply("rival", "2", "")
	if r.code != 409 || !strings.Contains(string(r.body), `conflict with \"ctrl\" with subresource \"status\": .status.readyReplicas`) {
		t.Fatalf("a rival's apply: %d %s", r.code, r.body)
	}
	if r := apply("rival", "2", "&force=true"); r.code != 200 {
		t.Fatalf("forced: %d %s", r.code, r.body)
	}
	if r := e.do("PATCH", depPath+"/absent/status?fieldManager=ctrl",
		`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"absent"},"status":{"readyReplicas":1}}`,
		"Content-Type: "+applyPatchType); r.code != 404 {
		t.Errorf("apply to the status of no object: %d %s", r.code, r.body)
	}
}
