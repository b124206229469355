package clients

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
)

// TestCompactedResourceVersionIsExpiredToClientGo: once etcd's history is
// compacted (converge up does it every --etcd-compaction-interval, as
// kube-apiserver does), client-go's own error helpers see a watch or an
// exact list from an older resourceVersion as 410 Gone, "resource
// expired": what makes a reflector relist. A watch from a fresh list's
// resourceVersion still works.
func TestCompactedResourceVersionIsExpiredToClientGo(t *testing.T) {
	c := start(t)
	cms := c.cs.CoreV1().ConfigMaps("default")
	created, err := cms.Create(ctx(t), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "history"}, Data: map[string]string{"v": "0"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	old := created.ResourceVersion
	// Two changes: a watch from old starts at the first, which the
	// compaction at the second discards.
	for _, v := range []string{"1", "2"} {
		if _, err := cms.Patch(ctx(t), "history", types.MergePatchType, []byte(`{"data":{"v":"`+v+`"}}`), metav1.PatchOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	rev, err := c.st.Rev(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.st.Compact(ctx(t), rev); err != nil {
		t.Fatal(err)
	}

	w, err := cms.Watch(ctx(t), metav1.ListOptions{ResourceVersion: old})
	if err != nil {
		t.Fatalf("watch from %s: %v", old, err)
	}
	ev := <-w.ResultChan()
	w.Stop()
	if ev.Type != watch.Error {
		t.Fatalf("watch from compacted %s: first event %s %T, want an ERROR", old, ev.Type, ev.Object)
	}
	if err := apierrors.FromObject(ev.Object); !apierrors.IsResourceExpired(err) && !apierrors.IsGone(err) {
		t.Fatalf("watch from compacted %s: %v, want 410 resource expired", old, err)
	}

	_, err = cms.List(ctx(t), metav1.ListOptions{ResourceVersion: old, ResourceVersionMatch: metav1.ResourceVersionMatchExact})
	if !apierrors.IsResourceExpired(err) && !apierrors.IsGone(err) {
		t.Fatalf("exact list at compacted %s: %v, want 410 resource expired", old, err)
	}

	list, err := cms.List(ctx(t), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	now, err := cms.Watch(ctx(t), metav1.ListOptions{ResourceVersion: list.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	defer now.Stop()
	if _, err := cms.Patch(ctx(t), "history", types.MergePatchType, []byte(`{"data":{"v":"3"}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	if ev := <-now.ResultChan(); ev.Type != watch.Modified {
		t.Fatalf("watch from the list: first event %s %v, want MODIFIED", ev.Type, ev.Object)
	}
}
