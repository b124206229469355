package registry_test

import (
	"context"
	"testing"

	"k8s.io/apimachinery/pkg/types"

	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/impl/registry"
)

// boundPod creates node (if ready != "") and a pod bound to it.
func boundPod(t *testing.T, ctx context.Context, r *registry.Registry, name, nodeName string) *api.Pod {
	t.Helper()
	p := pod(name, nil)
	p.Spec.TerminationGracePeriodSeconds = int64p(12)
	mustCreate(t, ctx, r, p)
	out, err := r.Bind(ctx, "default", name, nodeName, "")
	if err != nil {
		t.Fatal(err)
	}
	return out.(*api.Pod)
}

func TestDeleteBoundPodIsGraceful(t *testing.T) {
	r, ctx := newRegistry(t)
	mustCreate(t, ctx, r, node("n1", api.ConditionTrue))
	p := boundPod(t, ctx, r, "p", "n1")

	out, err := r.Delete(ctx, "pods", "default", "p", api.DeleteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	m := out.(*api.Pod)
	if m.DeletionTimestamp == nil || !m.DeletionTimestamp.Time.Equal(epoch) {
		t.Fatalf("deletionTimestamp %v, want the clock's %v", m.DeletionTimestamp, epoch)
	}
	if m.DeletionGracePeriodSeconds == nil || *m.DeletionGracePeriodSeconds != 12 {
		t.Fatalf("deletionGracePeriodSeconds %v, want the pod's 12", m.DeletionGracePeriodSeconds)
	}
	if m.ResourceVersion == p.ResourceVersion {
		t.Fatal("marking wrote nothing")
	}
	got, err := r.Get(ctx, "pods", "default", "p")
	if err != nil {
		t.Fatalf("a gracefully deleted pod must stay until its kubelet removes it: %v", err)
	}
	if api.Meta(got).ResourceVersion != m.ResourceVersion {
		t.Fatal("Get disagrees with Delete's result")
	}

	// A second delete of a terminating pod writes nothing, unless it
	// shortens the grace period, as upstream's BeforeDelete.
	before := rev(t, ctx, r)
	again, err := r.Delete(ctx, "pods", "default", "p", api.DeleteOptions{GracePeriodSeconds: int64p(12)})
	if err != nil {
		t.Fatal(err)
	}
	if api.Meta(again).ResourceVersion != m.ResourceVersion || rev(t, ctx, r) != before {
		t.Fatal("a repeated delete of a terminating pod wrote")
	}
	shorter, err := r.Delete(ctx, "pods", "default", "p", api.DeleteOptions{GracePeriodSeconds: int64p(5)})
	if err != nil {
		t.Fatal(err)
	}
	if g := api.Meta(shorter).DeletionGracePeriodSeconds; g == nil || *g != 5 || rev(t, ctx, r) == before {
		t.Fatalf("a shorter grace period was not stored: %v", g)
	}
	m = shorter.(*api.Pod)

	// Updates keep the deletion fields whatever the client sends.
	c := api.DeepCopy(m)
	c.DeletionTimestamp, c.DeletionGracePeriodSeconds = nil, nil
	c.Labels = map[string]string{"a": "b"}
	up, err := r.Update(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	if api.Meta(up).DeletionTimestamp == nil {
		t.Fatal("an update cleared deletionTimestamp")
	}

	// The kubelet's final delete: grace period 0 removes it.
	if _, err := r.Delete(ctx, "pods", "default", "p", api.DeleteOptions{GracePeriodSeconds: int64p(0)}); err != nil {
		t.Fatal(err)
	}
	_, err = r.Get(ctx, "pods", "default", "p")
	wantReason(t, err, api.StatusReasonNotFound, 404)
}

func TestDeleteGracePeriodOption(t *testing.T) {
	r, ctx := newRegistry(t)
	mustCreate(t, ctx, r, node("n1", api.ConditionTrue))
	boundPod(t, ctx, r, "p", "n1")
	out, err := r.Delete(ctx, "pods", "default", "p", api.DeleteOptions{GracePeriodSeconds: int64p(3)})
	if err != nil {
		t.Fatal(err)
	}
	if g := api.Meta(out).DeletionGracePeriodSeconds; g == nil || *g != 3 {
		t.Fatalf("deletionGracePeriodSeconds %v, want 3", g)
	}
}

func TestDeleteImmediately(t *testing.T) {
	cases := []struct {
		name  string
		setup func(t *testing.T, ctx context.Context, r *registry.Registry)
		opts  api.DeleteOptions
	}{
		{"unbound pod", func(t *testing.T, ctx context.Context, r *registry.Registry) {
			mustCreate(t, ctx, r, pod("p", nil))
		}, api.DeleteOptions{}},
		{"pod on a missing node", func(t *testing.T, ctx context.Context, r *registry.Registry) {
			mustCreate(t, ctx, r, node("n1", api.ConditionTrue))
			boundPod(t, ctx, r, "p", "n1")
			if _, err := r.Delete(ctx, "nodes", "", "n1", api.DeleteOptions{}); err != nil {
				t.Fatal(err)
			}
		}, api.DeleteOptions{}},
		{"force", func(t *testing.T, ctx context.Context, r *registry.Registry) {
			mustCreate(t, ctx, r, node("n1", api.ConditionTrue))
			boundPod(t, ctx, r, "p", "n1")
		}, api.DeleteOptions{GracePeriodSeconds: int64p(0)}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, ctx := newRegistry(t)
			c.setup(t, ctx, r)
			out, err := r.Delete(ctx, "pods", "default", "p", c.opts)
			if err != nil {
				t.Fatal(err)
			}
			if api.Meta(out).Name != "p" || api.Meta(out).DeletionTimestamp != nil {
				t.Fatalf("returned %q deletionTimestamp %v", api.Meta(out).Name, api.Meta(out).DeletionTimestamp)
			}
			_, err = r.Get(ctx, "pods", "default", "p")
			wantReason(t, err, api.StatusReasonNotFound, 404)
			_, err = r.Delete(ctx, "pods", "default", "p", c.opts)
			wantReason(t, err, api.StatusReasonNotFound, 404)
		})
	}
}

func TestDeletePreconditionsAndOptions(t *testing.T) {
	r, ctx := newRegistry(t)
	d := mustCreate(t, ctx, r, deployment("myapp", 1))
	before := rev(t, ctx, r)

	_, err := r.Delete(ctx, "deployments", "default", "myapp",
		api.DeleteOptions{Preconditions: &api.Preconditions{ResourceVersion: strp("1")}})
	wantReason(t, err, api.StatusReasonConflict, 409)
	_, err = r.Delete(ctx, "deployments", "default", "myapp",
		api.DeleteOptions{Preconditions: &api.Preconditions{UID: ptr(types.UID("other"))}})
	wantReason(t, err, api.StatusReasonConflict, 409)
	for _, p := range []api.DeletionPropagation{"Sideways", "orphan"} {
		_, err = r.Delete(ctx, "deployments", "default", "myapp", api.DeleteOptions{PropagationPolicy: &p})
		wantReason(t, err, api.StatusReasonBadRequest, 400)
	}
	_, err = r.Delete(ctx, "deployments", "default", "myapp", api.DeleteOptions{GracePeriodSeconds: int64p(-1)})
	wantReason(t, err, api.StatusReasonBadRequest, 400)
	if after := rev(t, ctx, r); after != before {
		t.Fatalf("revision moved %d -> %d on refused deletes", before, after)
	}

	bg := api.DeletePropagationBackground
	_, err = r.Delete(ctx, "deployments", "default", "myapp", api.DeleteOptions{
		PropagationPolicy: &bg,
		Preconditions:     &api.Preconditions{ResourceVersion: strp(d.ResourceVersion), UID: ptr(d.UID)},
	})
	if err != nil {
		t.Fatal(err)
	}
}
