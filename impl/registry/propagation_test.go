package registry_test

import (
	"reflect"
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

// The policies only set the garbage collector's finalizers: the
// collector, a component, does the rest.
func TestDeletePropagationPolicies(t *testing.T) {
	for _, tc := range []struct {
		policy     api.DeletionPropagation
		finalizers []string // nil: the owner is gone at once
	}{
		{api.DeletePropagationOrphan, []string{"orphan"}},
		{api.DeletePropagationForeground, []string{"foregroundDeletion"}},
		{api.DeletePropagationBackground, nil},
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
			owner, err := r.Get(ctx, "replicasets", "default", "web")
			if tc.finalizers == nil {
				if !api.IsNotFound(err) {
					t.Fatalf("the owner is still there: %v", err)
				}
			} else {
				if err != nil {
					t.Fatalf("the owner went at once: %v", err)
				}
				m := api.Meta(owner)
				if m.DeletionTimestamp == nil || !reflect.DeepEqual(m.Finalizers, tc.finalizers) {
					t.Fatalf("owner deletionTimestamp %v finalizers %v, want set and %v", m.DeletionTimestamp, m.Finalizers, tc.finalizers)
				}
			}
			list, err := r.List(ctx, "pods", "default", registry.ListOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if n := len(api.Items(list)); n != 2 {
				t.Fatalf("%d pods left, want the 2 the garbage collector has yet to act on", n)
			}
			for _, o := range api.Items(list) {
				if len(api.Meta(o).OwnerReferences) != 1 || api.Meta(o).DeletionTimestamp != nil {
					t.Errorf("pod %s changed by its owner's delete", api.Meta(o).Name)
				}
			}
		})
	}
}
