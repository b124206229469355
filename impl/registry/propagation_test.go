package registry_test

import (
	"testing"

	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/impl/registry"
)

// ownedPod is an unbound pod controlled by rs (unbound, so its delete is
// immediate).
func ownedPod(name string, rs *api.ReplicaSet) *api.Pod {
	p := pod(name, map[string]string{"app": "web"})
	yes := true
	p.OwnerReferences = []api.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: rs.Name, UID: rs.UID, Controller: &yes}}
	return p
}

func TestDeletePropagationPolicies(t *testing.T) {
	for _, tc := range []struct {
		policy   api.DeletionPropagation
		podsLeft int
		owned    bool
	}{
		{api.DeletePropagationOrphan, 2, false},     // dependents stay, without the owner reference
		{api.DeletePropagationForeground, 0, false}, // dependents go first
		{api.DeletePropagationBackground, 2, true},  // the garbage collector's job, later
	} {
		t.Run(string(tc.policy), func(t *testing.T) {
			r, ctx := newRegistry(t)
			rs := mustCreate(t, ctx, r, replicaSet("web"))
			mustCreate(t, ctx, r, ownedPod("web-0", rs))
			mustCreate(t, ctx, r, ownedPod("web-1", rs))
			p := tc.policy
			if _, err := r.Delete(ctx, "replicasets", "default", "web", api.DeleteOptions{PropagationPolicy: &p}); err != nil {
				t.Fatal(err)
			}
			if _, err := r.Get(ctx, "replicasets", "default", "web"); !api.IsNotFound(err) {
				t.Fatalf("the owner is still there: %v", err)
			}
			list, err := r.List(ctx, "pods", "default", registry.ListOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if n := len(list.GetItems()); n != tc.podsLeft {
				t.Fatalf("%d pods left, want %d", n, tc.podsLeft)
			}
			for _, o := range list.GetItems() {
				if owned := len(o.GetObjectMeta().OwnerReferences) > 0; owned != tc.owned {
					t.Errorf("pod %s owned=%v, want %v", o.GetObjectMeta().Name, owned, tc.owned)
				}
			}
		})
	}
}
