package registry_test

import (
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
