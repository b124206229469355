package registry_test

import (
	"context"
	corev1 "k8s.io/api/core/v1"
	"slices"
	"strings"
	"testing"

	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/impl/registry"
)

func ptr[T any](v T) *T { return &v }

func mustUpdate(t *testing.T, ctx context.Context, r *registry.Registry, obj api.Object) api.Object {
	t.Helper()
	out, err := r.Update(ctx, obj)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func getNamespace(t *testing.T, ctx context.Context, r *registry.Registry, name string) *api.Namespace {
	t.Helper()
	obj, err := r.Get(ctx, "namespaces", "", name)
	if err != nil {
		t.Fatalf("namespace %s: %v", name, err)
	}
	return obj.(*api.Namespace)
}

// A namespace is created Active with the namespace controller's
// "kubernetes" finalizer added to what the client listed, as upstream's
// PrepareForCreate; a spec finalizer must be standard or qualified.
func TestANamespaceIsCreatedWithTheKubernetesFinalizer(t *testing.T) {
	r, ctx := newRegistry(t)
	ns := namespace("dev")
	ns.Spec.Finalizers = []corev1.FinalizerName{"example.com/cleanup"}
	ns.Status.Phase = api.NamespaceTerminating
	out, err := r.Create(ctx, ns)
	if err != nil {
		t.Fatal(err)
	}
	got := out.(*api.Namespace)
	if want := []corev1.FinalizerName{"example.com/cleanup", "kubernetes"}; !slices.Equal(got.Spec.Finalizers, want) || got.Status.Phase != api.NamespaceActive {
		t.Fatalf("created namespace: finalizers %q phase %q, want %q Active", got.Spec.Finalizers, got.Status.Phase, want)
	}
	if got := mustCreate(t, ctx, r, namespace("plain")); !slices.Equal(got.Spec.Finalizers, []corev1.FinalizerName{"kubernetes"}) {
		t.Fatalf("created namespace: finalizers %q, want [kubernetes]", got.Spec.Finalizers)
	}
	bad := namespace("bad")
	bad.Spec.Finalizers = []corev1.FinalizerName{"cleanup"}
	_, err = r.Create(ctx, bad)
	wantReason(t, err, api.StatusReasonInvalid, 422)
	if !strings.Contains(err.Error(), "spec.finalizers[0]") || !strings.Contains(err.Error(), "neither a standard finalizer name nor is it fully qualified") {
		t.Fatalf("unqualified spec finalizer: %v", err)
	}
}

// Deleting a namespace only marks it Terminating: what it holds stays for
// the namespace controller, creates into it are refused with upstream's
// answer, and a second delete while spec.finalizers holds it changes
// nothing. The namespaces the cluster needs cannot be deleted.
func TestDeletingANamespaceOnlyMarksIt(t *testing.T) {
	r, ctx := newRegistry(t)
	mustCreate(t, ctx, r, namespace("dev"))
	inDev := deployment("api", 1)
	inDev.Namespace = "dev"
	mustCreate(t, ctx, r, inDev)

	if _, err := r.Delete(ctx, "namespaces", "", "dev", api.DeleteOptions{DryRun: []string{"All"}}); err != nil {
		t.Fatal(err)
	}
	if ns := getNamespace(t, ctx, r, "dev"); ns.DeletionTimestamp != nil || ns.Status.Phase != api.NamespaceActive {
		t.Fatalf("a dry-run delete marked the namespace: %+v", ns)
	}
	out, err := r.Delete(ctx, "namespaces", "", "dev", api.DeleteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ns := out.(*api.Namespace)
	if ns.DeletionTimestamp == nil || ns.DeletionGracePeriodSeconds != nil || ns.Status.Phase != api.NamespaceTerminating || len(ns.Finalizers) != 0 {
		t.Fatalf("deleted namespace: deletionTimestamp %v grace %v phase %q finalizers %q, want marked Terminating with no grace period and no finalizers",
			ns.DeletionTimestamp, ns.DeletionGracePeriodSeconds, ns.Status.Phase, ns.Finalizers)
	}
	if cur, err := r.Get(ctx, "deployments", "dev", "api"); err != nil || api.Meta(cur).DeletionTimestamp != nil {
		t.Fatalf("the namespace's deployment after the delete: %v, want it there and not deleting", err)
	}
	again, err := r.Delete(ctx, "namespaces", "", "dev", api.DeleteOptions{PropagationPolicy: ptr(api.DeletePropagationForeground)})
	if err != nil {
		t.Fatal(err)
	}
	if api.Meta(again).ResourceVersion != ns.ResourceVersion || len(api.Meta(again).Finalizers) != 0 {
		t.Fatalf("a second delete wrote: resourceVersion %s finalizers %q, want %s and none", api.Meta(again).ResourceVersion, api.Meta(again).Finalizers, ns.ResourceVersion)
	}

	late := pod("late", nil)
	late.Namespace = "dev"
	_, err = r.Create(ctx, late)
	wantReason(t, err, api.StatusReasonForbidden, 403)
	if want := `pods "late" is forbidden: unable to create new content in namespace dev because it is being terminated`; err.Error() != want {
		t.Fatalf("create in a Terminating namespace: %q, want %q", err, want)
	}
	causes := err.(*api.StatusError).Status.Details.Causes
	if len(causes) != 1 || causes[0] != (api.StatusCause{Type: "NamespaceTerminating", Message: "namespace dev is being terminated", Field: "metadata.namespace"}) {
		t.Fatalf("causes: %+v", causes)
	}
	missing := pod("p", nil)
	missing.Namespace = "nope"
	_, err = r.Create(ctx, missing)
	wantReason(t, err, api.StatusReasonNotFound, 404)
	if want := `namespaces "nope" not found`; err.Error() != want {
		t.Fatalf("create in a missing namespace: %q, want %q", err, want)
	}
	for _, name := range []string{"default", "kube-system", "kube-public"} {
		_, err := r.Delete(ctx, "namespaces", "", name, api.DeleteOptions{})
		wantReason(t, err, api.StatusReasonForbidden, 403)
	}
}

// The finalize subresource takes spec.finalizers and keeps the status; a
// plain update keeps spec.finalizers. Taking the last spec finalizer off a
// Terminating namespace with no metadata finalizers removes it, as
// upstream's ShouldDeleteNamespaceDuringUpdate.
func TestFinalizingATerminatingNamespaceRemovesIt(t *testing.T) {
	r, ctx := newRegistry(t)
	created := mustCreate(t, ctx, r, namespace("dev"))
	if _, err := r.Delete(ctx, "namespaces", "", "dev", api.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	stale := api.DeepCopy(created)
	stale.Spec.Finalizers = nil
	_, err := r.FinalizeNamespace(ctx, stale)
	wantReason(t, err, api.StatusReasonConflict, 409)

	ns := getNamespace(t, ctx, r, "dev")
	ns.Spec.Finalizers = nil
	if _, err := r.Update(ctx, ns); err != nil {
		t.Fatal(err)
	}
	if ns = getNamespace(t, ctx, r, "dev"); !slices.Equal(ns.Spec.Finalizers, []corev1.FinalizerName{"kubernetes"}) {
		t.Fatalf("a plain update changed spec.finalizers to %q", ns.Spec.Finalizers)
	}

	ns.Spec.Finalizers = []corev1.FinalizerName{"example.com/cleanup"}
	ns.Status.Phase = api.NamespaceActive
	out, err := r.FinalizeNamespace(ctx, ns)
	if err != nil {
		t.Fatal(err)
	}
	if got := out.(*api.Namespace); !slices.Equal(got.Spec.Finalizers, []corev1.FinalizerName{"example.com/cleanup"}) || got.Status.Phase != api.NamespaceTerminating {
		t.Fatalf("finalized namespace: finalizers %q phase %q, want [example.com/cleanup] Terminating", got.Spec.Finalizers, got.Status.Phase)
	}
	getNamespace(t, ctx, r, "dev")

	ns = out.(*api.Namespace)
	ns.Spec.Finalizers = nil
	if _, err := r.FinalizeNamespace(ctx, ns); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Get(ctx, "namespaces", "", "dev"); !api.IsNotFound(err) {
		t.Fatalf("namespace dev after its last finalizer went: %v, want NotFound", err)
	}
}

// metadata.finalizers hold a namespace too: an orphan delete leaves the
// garbage collector's finalizer, which outlasts spec.finalizers; taking
// it off while spec.finalizers still holds the namespace keeps it.
func TestMetadataFinalizersHoldANamespace(t *testing.T) {
	r, ctx := newRegistry(t)
	mustCreate(t, ctx, r, namespace("dev"))
	out, err := r.Delete(ctx, "namespaces", "", "dev", api.DeleteOptions{PropagationPolicy: ptr(api.DeletePropagationOrphan)})
	if err != nil {
		t.Fatal(err)
	}
	if ns := out.(*api.Namespace); !slices.Equal(ns.Finalizers, []string{"orphan"}) {
		t.Fatalf("orphan delete: metadata.finalizers %q, want [orphan]", ns.Finalizers)
	}
	ns := out.(*api.Namespace)
	ns.Finalizers = nil
	if ns = mustUpdate(t, ctx, r, ns).(*api.Namespace); ns.DeletionTimestamp == nil {
		t.Fatal("the update lost the deletion timestamp")
	}
	ns.Finalizers = []string{"orphan"}
	_, err = r.Update(ctx, ns)
	wantReason(t, err, api.StatusReasonInvalid, 422) // no new finalizers while deleting

	mustCreate(t, ctx, r, namespace("held"))
	if _, err := r.Delete(ctx, "namespaces", "", "held", api.DeleteOptions{PropagationPolicy: ptr(api.DeletePropagationOrphan)}); err != nil {
		t.Fatal(err)
	}
	held := getNamespace(t, ctx, r, "held")
	held.Spec.Finalizers = nil
	if _, err := r.FinalizeNamespace(ctx, held); err != nil {
		t.Fatal(err)
	}
	held = getNamespace(t, ctx, r, "held")
	held.Finalizers = nil
	mustUpdate(t, ctx, r, held)
	if _, err := r.Get(ctx, "namespaces", "", "held"); !api.IsNotFound(err) {
		t.Fatalf("namespace held after its last finalizer went: %v, want NotFound", err)
	}
}

// A namespace finalized before anyone deletes it is still only marked by
// its first delete, as upstream's Delete marks whatever the finalizers;
// the second delete removes it.
func TestANamespaceFinalizedEarlyGoesOnItsSecondDelete(t *testing.T) {
	r, ctx := newRegistry(t)
	ns := mustCreate(t, ctx, r, namespace("dev"))
	ns.Spec.Finalizers = nil
	if _, err := r.FinalizeNamespace(ctx, ns); err != nil {
		t.Fatal(err)
	}
	if ns = getNamespace(t, ctx, r, "dev"); ns.Status.Phase != api.NamespaceActive || len(ns.Spec.Finalizers) != 0 {
		t.Fatalf("a live namespace finalized: %+v", ns)
	}
	if _, err := r.Delete(ctx, "namespaces", "", "dev", api.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if ns = getNamespace(t, ctx, r, "dev"); ns.DeletionTimestamp == nil {
		t.Fatal("the first delete did not mark the namespace")
	}
	out, err := r.Delete(ctx, "namespaces", "", "dev", api.DeleteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if api.Meta(out).Name != "dev" {
		t.Fatalf("the second delete answered %+v", out)
	}
	if _, err := r.Get(ctx, "namespaces", "", "dev"); !api.IsNotFound(err) {
		t.Fatalf("namespace dev after the second delete: %v, want NotFound", err)
	}
}
