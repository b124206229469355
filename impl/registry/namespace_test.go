package registry_test

import (
	"strings"
	"testing"

	"github.com/converge-dev/converge/impl/api"
)

// Deleting a namespace deletes what it holds, and only that; the
// namespaces the cluster needs cannot be deleted.
func TestDeletingANamespaceDeletesItsObjects(t *testing.T) {
	r, ctx := newRegistry(t)
	mustCreate(t, ctx, r, &api.Namespace{ObjectMeta: api.ObjectMeta{Name: "dev"}})
	inDev := deployment("api", 1)
	inDev.Namespace = "dev"
	mustCreate(t, ctx, r, inDev)
	devPod := pod("p", nil)
	devPod.Namespace = "dev"
	mustCreate(t, ctx, r, devPod)
	mustCreate(t, ctx, r, deployment("web", 1)) // in default

	if _, err := r.Delete(ctx, "namespaces", "", "dev", api.DeleteOptions{DryRun: []string{"All"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Get(ctx, "deployments", "dev", "api"); err != nil {
		t.Fatalf("a dry-run namespace delete removed its content: %v", err)
	}
	if _, err := r.Delete(ctx, "namespaces", "", "dev", api.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ resource, ns, name string }{{"deployments", "dev", "api"}, {"pods", "dev", "p"}, {"namespaces", "", "dev"}} {
		if _, err := r.Get(ctx, c.resource, c.ns, c.name); !api.IsNotFound(err) {
			t.Errorf("%s %s/%s after deleting namespace dev: %v", c.resource, c.ns, c.name, err)
		}
	}
	if _, err := r.Get(ctx, "deployments", "default", "web"); err != nil {
		t.Fatalf("another namespace's object went too: %v", err)
	}
	for _, ns := range []string{"default", "kube-system"} {
		_, err := r.Delete(ctx, "namespaces", "", ns, api.DeleteOptions{})
		wantReason(t, err, api.StatusReasonForbidden, 403)
	}
}

// A finalizer holds its object through a namespace's deletion, and the
// namespace stays Terminating, refusing new content, until that object
// goes: then the namespace goes with it.
func TestATerminatingNamespaceWaitsForFinalizers(t *testing.T) {
	r, ctx := newRegistry(t)
	mustCreate(t, ctx, r, &api.Namespace{ObjectMeta: api.ObjectMeta{Name: "dev"}})
	held := deployment("api", 1)
	held.Namespace, held.Finalizers = "dev", []string{"example.com/hold"}
	mustCreate(t, ctx, r, held)
	loose := pod("p", nil)
	loose.Namespace = "dev"
	mustCreate(t, ctx, r, loose)

	out, err := r.Delete(ctx, "namespaces", "", "dev", api.DeleteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if ns := out.(*api.Namespace); ns.DeletionTimestamp == nil || ns.Status.Phase != "Terminating" {
		t.Fatalf("namespace dev: deletionTimestamp %v phase %q, want Terminating", ns.DeletionTimestamp, ns.Status.Phase)
	}
	if _, err := r.Get(ctx, "pods", "dev", "p"); !api.IsNotFound(err) {
		t.Fatalf("the pod nothing held is still there: %v", err)
	}
	cur, err := r.Get(ctx, "deployments", "dev", "api")
	if err != nil || cur.GetObjectMeta().DeletionTimestamp == nil {
		t.Fatalf("the held deployment: %v, want it marked for deletion", err)
	}
	late := pod("late", nil)
	late.Namespace = "dev"
	_, err = r.Create(ctx, late)
	wantReason(t, err, api.StatusReasonForbidden, 403)
	if err == nil || !strings.Contains(err.Error(), "unable to create new content in namespace dev because it is being terminated") {
		t.Fatalf("create in a Terminating namespace: %v", err)
	}

	cur.GetObjectMeta().Finalizers = nil
	if _, err := r.Update(ctx, cur); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ resource, ns, name string }{{"deployments", "dev", "api"}, {"namespaces", "", "dev"}} {
		if _, err := r.Get(ctx, c.resource, c.ns, c.name); !api.IsNotFound(err) {
			t.Errorf("%s %s/%s once the finalizer went: %v", c.resource, c.ns, c.name, err)
		}
	}
}
