package registry_test

import (
	"errors"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/converge-dev/converge/impl/api"
)

// A user's finalizer holds an object through its delete; only an update
// that removes it lets the object go, and nothing may add one meanwhile.
func TestFinalizerHoldsAnObjectUntilAnUpdateRemovesIt(t *testing.T) {
	r, ctx := newRegistry(t)
	in := replicaSet("held")
	in.Finalizers = []string{"example.com/hold"}
	mustCreate(t, ctx, r, in)

	out, err := r.Delete(ctx, "replicasets", "default", "held", api.DeleteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	m := api.Meta(out)
	if m.DeletionTimestamp == nil || m.DeletionGracePeriodSeconds == nil || *m.DeletionGracePeriodSeconds != 0 {
		t.Fatalf("deletionTimestamp %v grace %v, want set and 0", m.DeletionTimestamp, m.DeletionGracePeriodSeconds)
	}
	before := rev(t, ctx, r)
	again, err := r.Delete(ctx, "replicasets", "default", "held", api.DeleteOptions{})
	if err != nil || api.Meta(again).ResourceVersion != m.ResourceVersion || rev(t, ctx, r) != before {
		t.Fatalf("a repeated delete wrote: %v", err)
	}

	add := api.DeepCopy(out)
	api.Meta(add).Finalizers = append(api.Meta(add).Finalizers, "example.com/other")
	_, err = r.Update(ctx, add)
	var se *api.StatusError
	if !errors.As(err, &se) || se.Status.Code != 422 || se.Status.Details == nil || len(se.Status.Details.Causes) != 1 ||
		se.Status.Details.Causes[0].Field != "metadata.finalizers" || !strings.Contains(se.Error(), "no new finalizers can be added if the object is being deleted") {
		t.Fatalf("adding a finalizer to an object being deleted: %v, want 422 on metadata.finalizers", err)
	}

	// The update that takes the last finalizer is not written: the object
	// goes as it was stored, and a watcher sees one DELETED event of it.
	ch, err := r.Watch(ctx, "replicasets", "default", strconv.FormatInt(before, 10))
	if err != nil {
		t.Fatal(err)
	}
	rm := api.DeepCopy(out)
	api.Meta(rm).Finalizers = nil
	gone, err := r.Update(ctx, rm)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Get(ctx, "replicasets", "default", "held"); !api.IsNotFound(err) {
		t.Fatalf("the object stayed after its last finalizer went: %v", err)
	}
	if got := rev(t, ctx, r); got != before+1 || api.Meta(gone).ResourceVersion != strconv.FormatInt(before, 10) {
		t.Fatalf("revision %d, answer at %s: want the deletion alone after %d, and the update's object at the revision it was judged against", got, api.Meta(gone).ResourceVersion, before)
	}
	if fs := api.Meta(gone).Finalizers; len(fs) != 0 || api.Meta(gone).DeletionTimestamp == nil {
		t.Fatalf("the answer's finalizers %v, deletion timestamp %v: want the update's object", fs, api.Meta(gone).DeletionTimestamp)
	}
	if ev := next(t, ch); ev.Type != "DELETED" || !reflect.DeepEqual(api.Meta(ev.Object).Finalizers, []string{"example.com/hold"}) {
		t.Fatalf("watch saw %s %v, want DELETED of the last stored value", ev.Type, ev.Object)
	}
}

// A delete's policy sets the garbage collector's finalizer; another delete
// switches it, and an explicit Background drops it (and then, nothing
// holding it, the object goes).
func TestDeletePoliciesSwitchTheGCFinalizer(t *testing.T) {
	r, ctx := newRegistry(t)
	mustCreate(t, ctx, r, replicaSet("web"))
	del := func(p api.DeletionPropagation) (api.Object, error) {
		return r.Delete(ctx, "replicasets", "default", "web", api.DeleteOptions{PropagationPolicy: &p})
	}
	for _, step := range []struct {
		policy api.DeletionPropagation
		want   []string
	}{
		{api.DeletePropagationOrphan, []string{"orphan"}},
		{api.DeletePropagationForeground, []string{"foregroundDeletion"}},
		{api.DeletePropagationOrphan, []string{"orphan"}},
	} {
		out, err := del(step.policy)
		if err != nil {
			t.Fatal(err)
		}
		if got := api.Meta(out).Finalizers; !reflect.DeepEqual(got, step.want) {
			t.Fatalf("after %s: finalizers %v, want %v", step.policy, got, step.want)
		}
	}
	if _, err := del(api.DeletePropagationBackground); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Get(ctx, "replicasets", "default", "web"); !api.IsNotFound(err) {
		t.Fatalf("background delete left the object: %v", err)
	}
}

// A bound pod with a finalizer is deleted gracefully; removing the
// finalizer leaves it to its kubelet, whose grace-0 delete removes it.
func TestFinalizerOnAGracefulPod(t *testing.T) {
	r, ctx := newRegistry(t)
	mustCreate(t, ctx, r, node("n1", api.ConditionTrue))
	p := boundPod(t, ctx, r, "p", "n1")
	p.Finalizers = []string{"example.com/hold"}
	p.ResourceVersion = ""
	if _, err := r.Update(ctx, p); err != nil {
		t.Fatal(err)
	}
	out, err := r.Delete(ctx, "pods", "default", "p", api.DeleteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if g := api.Meta(out).DeletionGracePeriodSeconds; g == nil || *g == 0 {
		t.Fatalf("grace %v, want the pod's", g)
	}
	rm := api.DeepCopy(out)
	api.Meta(rm).Finalizers = nil
	if _, err := r.Update(ctx, rm); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Get(ctx, "pods", "default", "p"); err != nil {
		t.Fatalf("the pod went before its kubelet's delete: %v", err)
	}
	if _, err := r.Delete(ctx, "pods", "default", "p", api.DeleteOptions{GracePeriodSeconds: int64p(0)}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Get(ctx, "pods", "default", "p"); !api.IsNotFound(err) {
		t.Fatalf("the kubelet's delete left the pod: %v", err)
	}
}

// A bound pod deleted in the foreground waits for its kubelet and the
// garbage collector; after the kubelet's grace-0 delete only the
// finalizer holds it, and a Background delete, which drops the garbage
// collector's finalizer, removes it at once: no grace period starts again.
func TestABackgroundDeleteEndsAForegroundPodsWait(t *testing.T) {
	r, ctx := newRegistry(t)
	mustCreate(t, ctx, r, node("n1", api.ConditionTrue))
	boundPod(t, ctx, r, "p", "n1")
	del := func(opts api.DeleteOptions) api.Object {
		t.Helper()
		out, err := r.Delete(ctx, "pods", "default", "p", opts)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	fg, bg := api.DeletePropagationForeground, api.DeletePropagationBackground
	out := del(api.DeleteOptions{PropagationPolicy: &fg})
	if g := api.Meta(out).DeletionGracePeriodSeconds; g == nil || *g == 0 || !reflect.DeepEqual(api.Meta(out).Finalizers, []string{"foregroundDeletion"}) {
		t.Fatalf("foreground delete of a bound pod: grace %v finalizers %v", g, api.Meta(out).Finalizers)
	}
	out = del(api.DeleteOptions{GracePeriodSeconds: int64p(0)})
	if g := api.Meta(out).DeletionGracePeriodSeconds; g == nil || *g != 0 {
		t.Fatalf("the kubelet's delete left grace %v, want 0 and the pod held", g)
	}
	del(api.DeleteOptions{PropagationPolicy: &bg})
	if _, err := r.Get(ctx, "pods", "default", "p"); !api.IsNotFound(err) {
		t.Fatalf("a Background delete of a pod with no grace left and no finalizer left it: %v", err)
	}
}
