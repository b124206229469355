package clients

import (
	"slices"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
)

// dependents counts the ReplicaSets and pods labelled app=name, and how
// many of them name an owner.
func (c *converge) dependents(t *testing.T, name string) (n, owned int) {
	t.Helper()
	sel := metav1.ListOptions{LabelSelector: "app=" + name}
	rs, err := c.cs.AppsV1().ReplicaSets("default").List(ctx(t), sel)
	if err != nil {
		t.Fatal(err)
	}
	pods, err := c.cs.CoreV1().Pods("default").List(ctx(t), sel)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range append(metaOf(rs.Items), metaOfPods(pods.Items)...) {
		n++
		if len(m.OwnerReferences) > 0 {
			owned++
		}
	}
	return n, owned
}

func metaOf(rs []appsv1.ReplicaSet) (out []metav1.ObjectMeta) {
	for _, r := range rs {
		out = append(out, r.ObjectMeta)
	}
	return out
}

func metaOfPods(pods []corev1.Pod) (out []metav1.ObjectMeta) {
	for _, p := range pods {
		out = append(out, p.ObjectMeta)
	}
	return out
}

// TestFinalizerAndForegroundDeletionWithControllerRuntime is an operator's
// cleanup pattern through controller-runtime's client: add a finalizer,
// delete in the foreground, see the deletion timestamp while the garbage
// collector removes the dependents, do the cleanup, remove the finalizer,
// and the object goes. No finalizer can be added meanwhile.
func TestFinalizerAndForegroundDeletionWithControllerRuntime(t *testing.T) {
	c := start(t)
	cl, err := client.New(c.cfg, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	d := deployment("held", 2)
	if err := cl.Create(ctx(t), d); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the Deployment's pods are ready", func() bool {
		return cl.Get(ctx(t), client.ObjectKeyFromObject(d), d) == nil && d.Status.ReadyReplicas == 2
	})
	controllerutil.AddFinalizer(d, "example.com/cleanup")
	if err := cl.Update(ctx(t), d); err != nil {
		t.Fatal(err)
	}
	if err := cl.Delete(ctx(t), d, client.PropagationPolicy(metav1.DeletePropagationForeground)); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the foreground cascade removes the dependents and its finalizer", func() bool {
		if err := cl.Get(ctx(t), client.ObjectKeyFromObject(d), d); err != nil {
			t.Fatal(err)
		}
		if d.DeletionTimestamp == nil {
			t.Fatalf("a Deployment with a finalizer was deleted, but has no deletionTimestamp")
		}
		n, _ := c.dependents(t, "held")
		return n == 0 && slices.Equal(d.Finalizers, []string{"example.com/cleanup"})
	})
	more := d.DeepCopy()
	controllerutil.AddFinalizer(more, "example.com/other")
	if err := cl.Update(ctx(t), more); !apierrors.IsInvalid(err) {
		t.Fatalf("adding a finalizer to a Deployment being deleted: %v, want 422 Invalid", err)
	}
	controllerutil.RemoveFinalizer(d, "example.com/cleanup")
	if err := cl.Update(ctx(t), d); err != nil {
		t.Fatal(err)
	}
	if err := cl.Get(ctx(t), client.ObjectKeyFromObject(d), d); !apierrors.IsNotFound(err) {
		t.Fatalf("the Deployment stayed after its last finalizer went: %v", err)
	}
}

// TestOrphanDeletionWithClientGo: an orphan delete through client-go lets
// the Deployment go and leaves its ReplicaSet and pods running, freed of
// their reference to it.
func TestOrphanDeletionWithClientGo(t *testing.T) {
	c := start(t)
	deps := c.cs.AppsV1().Deployments("default")
	if _, err := deps.Create(ctx(t), deployment("freed", 2), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the Deployment's pods are ready", func() bool {
		d, err := deps.Get(ctx(t), "freed", metav1.GetOptions{})
		return err == nil && d.Status.ReadyReplicas == 2
	})
	orphan := metav1.DeletePropagationOrphan
	if err := deps.Delete(ctx(t), "freed", metav1.DeleteOptions{PropagationPolicy: &orphan}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the Deployment goes", func() bool {
		_, err := deps.Get(ctx(t), "freed", metav1.GetOptions{})
		return apierrors.IsNotFound(err)
	})
	// The ReplicaSet is freed; its pods stay its own.
	rs, err := c.cs.AppsV1().ReplicaSets("default").List(ctx(t), metav1.ListOptions{LabelSelector: "app=freed"})
	if err != nil {
		t.Fatal(err)
	}
	if len(rs.Items) != 1 || len(rs.Items[0].OwnerReferences) != 0 {
		t.Fatalf("ReplicaSets after an orphan delete: %d, owners %v; want one, freed", len(rs.Items), rs.Items)
	}
	if n, owned := c.dependents(t, "freed"); n != 3 || owned != 2 {
		t.Fatalf("%d dependents, %d owned; want the ReplicaSet and its 2 pods, the pods still its own", n, owned)
	}
}
