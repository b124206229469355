package clients

import (
	"fmt"
	"strconv"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/util/retry"
)

// TestScaleWithConflictRetry: concurrent writers that each read, change
// and update a Deployment all land, through retry.RetryOnConflict; a
// stale update is 409 Conflict.
func TestScaleWithConflictRetry(t *testing.T) {
	c := start(t)
	deps := c.cs.AppsV1().Deployments("default")
	d, err := deps.Create(ctx(t), deployment("web", 1), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	const writers = 4
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for i := 0; i < writers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- retry.RetryOnConflict(retry.DefaultBackoff, func() error {
				cur, err := deps.Get(ctx(t), "web", metav1.GetOptions{})
				if err != nil {
					return err
				}
				*cur.Spec.Replicas++
				_, err = deps.Update(ctx(t), cur, metav1.UpdateOptions{})
				return err
			})
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	cur, err := deps.Get(ctx(t), "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if *cur.Spec.Replicas != 1+writers {
		t.Fatalf("replicas %d, want %d: an update was lost", *cur.Spec.Replicas, 1+writers)
	}
	// The scale subresource, as kubectl scale and autoscalers use it.
	sc, err := deps.GetScale(ctx(t), "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sc.Spec.Replicas = 2
	if _, err := deps.UpdateScale(ctx(t), "web", sc, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	// d is the object as created: its resourceVersion is long stale.
	_, err = deps.Update(ctx(t), d, metav1.UpdateOptions{})
	if !apierrors.IsConflict(err) {
		t.Fatalf("stale update: %v, want 409 Conflict", err)
	}
}

// TestPaginatedListAndWatchFromItsVersion: a list in pages of two sees
// every object once; a garbage continue token is 400; a watch from the
// list's resourceVersion sees exactly what came after it.
func TestPaginatedListAndWatchFromItsVersion(t *testing.T) {
	c := start(t)
	cms := c.cs.CoreV1().ConfigMaps("default")
	for i := 0; i < 5; i++ {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("cm-%d", i)}, Data: map[string]string{"i": strconv.Itoa(i)}}
		if _, err := cms.Create(ctx(t), cm, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	seen := map[string]bool{}
	opts := metav1.ListOptions{Limit: 2}
	pages, rv := 0, ""
	for {
		l, err := cms.List(ctx(t), opts)
		if err != nil {
			t.Fatal(err)
		}
		pages++
		if rv == "" {
			rv = l.ResourceVersion
		}
		for _, it := range l.Items {
			if seen[it.Name] {
				t.Fatalf("%s listed twice", it.Name)
			}
			seen[it.Name] = true
		}
		if l.Continue == "" {
			break
		}
		opts.Continue = l.Continue
	}
	if len(seen) != 5 || pages != 3 {
		t.Fatalf("saw %d objects in %d pages, want 5 in 3", len(seen), pages)
	}
	_, err := cms.List(ctx(t), metav1.ListOptions{Limit: 2, Continue: "garbage"})
	if !apierrors.IsBadRequest(err) {
		t.Fatalf("garbage continue: %v, want 400 BadRequest", err)
	}

	w, err := cms.Watch(ctx(t), metav1.ListOptions{ResourceVersion: rv})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	if _, err := cms.Create(ctx(t), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "later"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	ev := <-w.ResultChan()
	if got, ok := ev.Object.(*corev1.ConfigMap); ev.Type != watch.Added || !ok || got.Name != "later" {
		t.Fatalf("first event after the list: %s %#v", ev.Type, ev.Object)
	}
}
