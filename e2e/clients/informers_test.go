package clients

import (
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"
)

// deployment is a small Deployment of image nginx.
func deployment(name string, replicas int32) *appsv1.Deployment {
	labels := map[string]string{"app": name}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To(replicas),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx:1.27"}}},
			},
		},
	}
}

// TestInformersSyncWithDefaults: a shared informer factory with client-go's
// default settings (WatchList streaming on) syncs pods, deployments and
// replicasets, and then follows a rollout.
func TestInformersSyncWithDefaults(t *testing.T) {
	c := start(t)
	if _, err := c.cs.AppsV1().Deployments("default").Create(ctx(t), deployment("before", 1), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	f := informers.NewSharedInformerFactory(c.cs, 0)
	pods := f.Core().V1().Pods().Informer()
	deps := f.Apps().V1().Deployments().Informer()
	rss := f.Apps().V1().ReplicaSets().Informer()
	stop := make(chan struct{})
	t.Cleanup(func() { close(stop); f.Shutdown() })
	f.Start(stop)
	synced := make(chan bool, 1)
	go func() { synced <- cache.WaitForCacheSync(stop, pods.HasSynced, deps.HasSynced, rss.HasSynced) }()
	select {
	case ok := <-synced:
		if !ok {
			t.Fatal("informers did not sync")
		}
	case <-time.After(30 * time.Second):
		t.Fatal("informers not synced after 30s")
	}
	// Synced by streaming, not by a LIST after a refused watch.
	if n := c.watchLists.Load(); n < 3 {
		t.Fatalf("%d streaming lists answered, want one per informer", n)
	}
	if _, ok, _ := deps.GetStore().GetByKey("default/before"); !ok {
		t.Fatal("the synced deployment cache lacks default/before")
	}
	if _, err := c.cs.AppsV1().Deployments("default").Create(ctx(t), deployment("after", 3), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "3 pods of after and 1 of before in the pod cache", func() bool {
		n := map[string]int{}
		for _, o := range pods.GetStore().List() {
			n[o.(*corev1.Pod).Labels["app"]]++
		}
		return n["after"] == 3 && n["before"] == 1 && len(rss.GetStore().List()) == 2
	})
}

// eventually polls cond for up to 30 s.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
