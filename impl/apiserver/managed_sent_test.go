package apiserver

import (
	"strings"
	"testing"

	"github.com/converge-dev/converge/impl/api"
)

// TestScaleSubresourceOwnsReplicas: a write through deployments/scale is
// recorded for its manager with subresource "scale" and takes
// spec.replicas from the other managers; an apply of other replicas then
// conflicts with it, named as Kubernetes names it.
func TestScaleSubresourceOwnsReplicas(t *testing.T) {
	e := newEnv(t)
	e.must(201, "POST", deployPath+"?fieldManager=creator", deploymentJSON("web", 2, "nginx"))
	e.must(200, "PUT", webPath+"/scale?fieldManager=hpa", `{"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{"name":"web","namespace":"default"},"spec":{"replicas":4}}`)
	var d api.Deployment
	e.must(200, "GET", webPath, "").into(t, &d)
	var hpa, creator string
	for _, mf := range d.ManagedFields {
		switch {
		case mf.Manager == "hpa" && mf.Operation == "Update" && mf.Subresource == "scale" && mf.APIVersion == "apps/v1":
			hpa = string(mf.FieldsV1)
		case mf.Manager == "creator":
			creator = string(mf.FieldsV1)
		}
	}
	if hpa != `{"f:spec":{"f:replicas":{}}}` || strings.Contains(creator, "f:replicas") || creator == "" {
		t.Fatalf("hpa owns %s, creator owns %s", hpa, creator)
	}
	r := e.must(409, "PATCH", webPath+"?fieldManager=alice", `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},"spec":{"replicas":9}}`, "Content-Type: "+applyPatchType)
	if st := r.status(t); st.Message != `Apply failed with 1 conflict: conflict with "hpa" with subresource "scale" using apps/v1: .spec.replicas` {
		t.Fatalf("conflict message %q", st.Message)
	}
	// A scale that changes nothing records nothing new.
	e.must(200, "PUT", webPath+"/scale?fieldManager=noop", `{"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{"name":"web","namespace":"default"},"spec":{"replicas":4}}`)
	e.must(200, "GET", webPath, "").into(t, &d)
	for _, mf := range d.ManagedFields {
		if mf.Manager == "noop" {
			t.Fatalf("an unchanged scale recorded %s", mf.FieldsV1)
		}
	}
}

// TestClientWrittenManagedFields: an update's own managedFields are the
// ownership before it, as in Kubernetes; one empty entry resets them.
func TestClientWrittenManagedFields(t *testing.T) {
	e := newEnv(t)
	e.must(201, "POST", deployPath+"?fieldManager=creator", deploymentJSON("web", 2, "nginx"))
	// Hand creator's fields to "heir", as kubectl's client-side to
	// server-side apply migration does.
	var d api.Deployment
	e.must(200, "GET", webPath, "").into(t, &d)
	if len(d.ManagedFields) != 1 {
		t.Fatalf("managedFields %+v", d.ManagedFields)
	}
	d.ManagedFields[0].Manager, d.ManagedFields[0].Operation = "heir", "Apply"
	patch := `[{"op":"replace","path":"/metadata/managedFields","value":[{"manager":"heir","operation":"Apply","apiVersion":"apps/v1","fieldsType":"FieldsV1","fieldsV1":` + string(d.ManagedFields[0].FieldsV1) + `}]}]`
	e.must(200, "PATCH", webPath+"?fieldManager=migrator", patch, "Content-Type: "+jsonPatchType).into(t, &d)
	if len(d.ManagedFields) != 1 || d.ManagedFields[0].Manager != "heir" || d.ManagedFields[0].Operation != "Apply" {
		t.Fatalf("after the migration patch: %+v", d.ManagedFields)
	}
	e.must(200, "PATCH", webPath, `{"metadata":{"managedFields":[{}]}}`, "Content-Type: "+mergePatchType).into(t, &d)
	if len(d.ManagedFields) != 0 {
		t.Fatalf("after a reset: %+v", d.ManagedFields)
	}
}
