package registry

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/impl/store"
	"github.com/converge-dev/converge/impl/store/storetest"
)

// A write that hands its object over keeps that very object, made what
// decoding gives, and answers with it; one that does not gets an answer
// of its own, which it may change without touching what is kept.
func TestHandOverKeepsAndSharesTheWrittenObject(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	r := New(Config{Store: storetest.Store(t)})
	kept := func(name string) api.Object {
		r.recent.mu.Lock()
		defer r.recent.mu.Unlock()
		return r.recent.m[store.Key{Resource: "pods", Namespace: "default", Name: name}].decoded
	}
	newPod := func(name string) *api.Pod {
		return &api.Pod{ObjectMeta: api.ObjectMeta{Name: name, Namespace: "default", Labels: map[string]string{}},
			Spec: api.PodSpec{Containers: []api.Container{{Name: "c", Image: "nginx"}}}}
	}

	unwatched := newPod("early")
	out, err := r.Create(HandOver(ctx), unwatched)
	require.NoError(t, err)
	require.Same(t, unwatched, out, "handed over, and not copied")
	require.Nil(t, kept("early"), "with no watch open nothing is kept")
	require.NotEmpty(t, out.GetObjectMeta().ResourceVersion)

	list, err := r.List(ctx, "pods", "default", ListOptions{})
	require.NoError(t, err)
	w, err := r.WatchShared(ctx, "pods", "default", list.GetListMeta().ResourceVersion)
	require.NoError(t, err)

	in := newPod("p")
	out, err = r.Create(HandOver(ctx), in)
	require.NoError(t, err)
	require.Same(t, in, out)
	require.Same(t, out, kept("p"), "the answer is the kept object")
	require.Nil(t, out.GetObjectMeta().Labels, "made what decoding gives: an empty map is left out")
	require.Same(t, out, (<-w).Object, "and the watch's")

	running := api.DeepCopy(out).(*api.Pod)
	running.Status.Phase = api.PodRunning
	updated, err := r.UpdateStatus(HandOver(ctx), running)
	require.NoError(t, err)
	require.Same(t, updated, kept("p"))
	require.Same(t, updated, (<-w).Object)

	own, err := r.Create(ctx, newPod("q"))
	require.NoError(t, err)
	require.NotSame(t, own, kept("q"), "an answer not handed over is the caller's")
	require.Equal(t, own, kept("q"))
	own.GetObjectMeta().Labels = map[string]string{"changed": "by the caller"}
	own.(*api.Pod).Spec.Containers[0].Image = "changed"
	failed := api.DeepCopy(updated).(*api.Pod)
	failed.Status.Phase = api.PodFailed
	mine, err := r.UpdateStatus(ctx, failed)
	require.NoError(t, err)
	require.NotSame(t, mine, kept("p"))
	mine.(*api.Pod).Status.Phase = api.PodSucceeded
	requireKeptIntact(t, r)

	// A list handed over reads the kept objects; one not handed over gets
	// copies, which its caller may change.
	sharedList, err := r.List(HandOver(ctx), "pods", "default", ListOptions{})
	require.NoError(t, err)
	ownList, err := r.List(ctx, "pods", "default", ListOptions{})
	require.NoError(t, err)
	require.Equal(t, ownList, sharedList)
	for _, item := range ownList.GetItems() {
		item.GetObjectMeta().Labels = map[string]string{"changed": "by the caller"}
		item.(*api.Pod).Spec.Containers[0].Image = "changed"
	}
	requireKeptIntact(t, r)
}
