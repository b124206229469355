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
	require.NotEmpty(t, api.Meta(out).ResourceVersion)

	list, err := r.List(ctx, "pods", "default", ListOptions{})
	require.NoError(t, err)
	w, err := r.WatchShared(ctx, "pods", "default", api.ListMetaOf(list).ResourceVersion)
	require.NoError(t, err)

	in := newPod("p")
	out, err = r.Create(HandOver(ctx), in)
	require.NoError(t, err)
	require.Same(t, in, out)
	require.Same(t, out, kept("p"), "the answer is the kept object")
	require.Nil(t, api.Meta(out).Labels, "made what decoding gives: an empty map is left out")
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
	api.Meta(own).Labels = map[string]string{"changed": "by the caller"}
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
	for _, item := range api.Items(ownList) {
		api.Meta(item).Labels = map[string]string{"changed": "by the caller"}
		item.(*api.Pod).Spec.Containers[0].Image = "changed"
	}
	requireKeptIntact(t, r)
}

// A status update and a binding share what they do not change with the
// stored object; with no watch open nothing keeps their object, and a
// caller that does not hand objects over still gets one of its own, as
// from a dry run.
func TestAnswersNotHandedOverShareNothingWithKeptObjects(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	r := New(Config{Store: storetest.Store(t)})
	_, err := r.Create(ctx, &api.Node{ObjectMeta: api.ObjectMeta{Name: "n1", Labels: map[string]string{"k": "v"}},
		Status: api.NodeStatus{Conditions: []api.NodeCondition{{Type: api.NodeReady, Status: api.ConditionTrue}}}})
	require.NoError(t, err)
	created, err := r.Create(ctx, &api.Pod{ObjectMeta: api.ObjectMeta{Name: "p", Namespace: "default", Labels: map[string]string{"app": "a"}},
		Spec: api.PodSpec{Containers: []api.Container{{Name: "c", Image: "nginx"}}}})
	require.NoError(t, err)
	_, err = r.Get(ctx, "pods", "default", "p") // keeps the decoded pod
	require.NoError(t, err)
	scribbleOn := func(o api.Object) {
		api.Meta(o).Labels["app"] = "changed by the caller"
		o.(*api.Pod).Spec.Containers[0].Image = "changed"
	}

	running := api.DeepCopy(created).(*api.Pod)
	running.Status.Phase = api.PodRunning
	dry, err := r.UpdateStatus(WithDryRun(ctx), running)
	require.NoError(t, err)
	scribbleOn(dry)
	requireKeptIntact(t, r)
	updated, err := r.UpdateStatus(ctx, running)
	require.NoError(t, err)
	scribbleOn(updated)
	requireKeptIntact(t, r)

	pod, err := r.Get(ctx, "pods", "default", "p")
	require.NoError(t, err)
	dry, err = r.Bind(WithDryRun(ctx), "default", "p", "n1", api.Meta(pod).ResourceVersion)
	require.NoError(t, err)
	scribbleOn(dry)
	requireKeptIntact(t, r)
	bound, err := r.Bind(ctx, "default", "p", "n1", api.Meta(pod).ResourceVersion)
	require.NoError(t, err)
	scribbleOn(bound)
	requireKeptIntact(t, r)
}
