package registry_test

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/converge-dev/converge/impl/api"
)

func TestBind(t *testing.T) {
	r, ctx := newRegistry(t)
	mustCreate(t, ctx, r, node("ready", api.ConditionTrue))
	mustCreate(t, ctx, r, node("sick", api.ConditionFalse))
	p := mustCreate(t, ctx, r, pod("p", nil))
	before := rev(t, ctx, r)

	for _, target := range []string{"sick", "absent"} {
		_, err := r.Bind(ctx, "default", "p", target, "")
		wantReason(t, err, api.StatusReasonConflict, 409)
		if !strings.Contains(err.Error(), "missing or not ready") {
			t.Fatalf("bind to %s: %v", target, err)
		}
	}
	_, err := r.Bind(ctx, "default", "ghost", "ready", "")
	wantReason(t, err, api.StatusReasonNotFound, 404)
	_, err = r.Bind(ctx, "default", "p", "ready", "1")
	wantReason(t, err, api.StatusReasonConflict, 409)
	_, err = r.Bind(ctx, "default", "p", "", "")
	wantReason(t, err, api.StatusReasonInvalid, 422)
	if after := rev(t, ctx, r); after != before {
		t.Fatalf("revision moved %d -> %d on refused binds", before, after)
	}

	out, err := r.Bind(ctx, "", "p", "ready", p.ResourceVersion)
	if err != nil {
		t.Fatal(err)
	}
	b := out.(*api.Pod)
	if b.Spec.NodeName != "ready" || b.ResourceVersion == p.ResourceVersion || b.Status.HostIP != "" {
		t.Fatalf("bound pod: node %q rv %q hostIP %q", b.Spec.NodeName, b.ResourceVersion, b.Status.HostIP)
	}
	if c := b.Status.Conditions; len(c) != 1 || c[0].Type != "PodScheduled" || c[0].Status != api.ConditionTrue || !c[0].LastTransitionTime.Time.Equal(epoch) {
		t.Fatalf("bound pod conditions %+v, want PodScheduled True at the registry's clock", c)
	}
	_, err = r.Bind(ctx, "default", "p", "ready", "")
	wantReason(t, err, api.StatusReasonConflict, 409)
	if !strings.Contains(err.Error(), "already assigned") {
		t.Fatalf("second bind: %v", err)
	}
}

// TestBindRefusesAGatedPod: a pod is created with upstream's PodScheduled
// False/SchedulingGated condition and cannot be bound until its gates go.
func TestBindRefusesAGatedPod(t *testing.T) {
	r, ctx := newRegistry(t)
	mustCreate(t, ctx, r, node("ready", api.ConditionTrue))
	gated := pod("g", nil)
	gated.Spec.SchedulingGates = []corev1.PodSchedulingGate{{Name: "example.com/quota"}}
	p := mustCreate(t, ctx, r, gated)
	if c := p.Status.Conditions; len(c) != 1 || c[0].Type != api.PodScheduled || c[0].Status != api.ConditionFalse || c[0].Reason != api.PodReasonSchedulingGated {
		t.Fatalf("a gated pod's conditions: %+v", c)
	}
	_, err := r.Bind(ctx, "default", "g", "ready", "")
	wantReason(t, err, api.StatusReasonInternalError, 500)
	if !strings.Contains(err.Error(), "has non-empty .spec.schedulingGates") {
		t.Fatalf("bind of a gated pod: %v", err)
	}
	open := api.DeepCopy(p)
	open.Spec.SchedulingGates = nil
	if _, err := r.Update(ctx, open); err != nil {
		t.Fatal(err)
	}
	b, err := r.Bind(ctx, "default", "g", "ready", "")
	if err != nil {
		t.Fatal(err)
	}
	if c := b.(*api.Pod).Status.Conditions; len(c) != 1 || c[0].Status != api.ConditionTrue {
		t.Fatalf("bound, the gate gone: %+v", c)
	}
}
