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

// An update whose resourceVersion is the registry's own last write starts
// from the remembered value; a write made behind the registry's back is
// still caught by the CAS, and a precondition naming that newer write
// reads the key again.
func TestRecentValuesServeUpdatesAndStayCorrect(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	st := storetest.Store(t)
	r := New(Config{Store: st})
	pod := &api.Pod{ObjectMeta: api.ObjectMeta{Name: "p", Namespace: "default"},
		Spec: api.PodSpec{Containers: []api.Container{{Name: "c", Image: "nginx"}}}}
	created, err := r.Create(ctx, pod)
	require.NoError(t, err)
	key := store.Key{Resource: "pods", Namespace: "default", Name: "p"}
	rev, err := parseRV(api.Meta(created).ResourceVersion)
	require.NoError(t, err)
	_, hit := r.recent.at(key, rev)
	require.True(t, hit, "a create is remembered")

	running := api.DeepCopy(created).(*api.Pod)
	running.Status.Phase = api.PodRunning
	updated, err := r.UpdateStatus(ctx, running)
	require.NoError(t, err)
	require.Equal(t, api.PodRunning, updated.(*api.Pod).Status.Phase)
	rev, err = parseRV(api.Meta(updated).ResourceVersion)
	require.NoError(t, err)
	remembered, hit := r.recent.at(key, rev)
	require.True(t, hit, "an update is remembered")

	// Someone else writes the key: the remembered revision is now stale.
	behind, err := st.Update(ctx, key, remembered.Value, rev)
	require.NoError(t, err)
	stale := api.DeepCopy(updated).(*api.Pod)
	stale.Status.Phase = api.PodSucceeded
	_, err = r.UpdateStatus(ctx, stale)
	require.True(t, api.IsConflict(err), "the CAS catches the write made behind the registry: %v", err)

	fresh := api.DeepCopy(stale)
	api.Meta(fresh).ResourceVersion = formatRV(behind)
	_, hit = r.recent.at(key, behind)
	require.False(t, hit)
	out, err := r.UpdateStatus(ctx, fresh)
	require.NoError(t, err)
	require.Equal(t, api.PodSucceeded, out.(*api.Pod).Status.Phase)

	_, err = r.Delete(ctx, "pods", "default", "p", api.DeleteOptions{})
	require.NoError(t, err)
	r.recent.mu.Lock()
	_, kept := r.recent.m[key]
	r.recent.mu.Unlock()
	require.False(t, kept, "a removed key is forgotten")
}

func TestRecentValuesStayBounded(t *testing.T) {
	var c recentValues
	for i := 0; i < recentCap+10; i++ {
		c.wrote(nil, store.Object{Key: store.Key{Resource: "pods", Namespace: "default", Name: formatRV(int64(i))}, Rev: int64(i + 1)})
	}
	require.Len(t, c.m, recentCap)
	_, hit := c.at(store.Key{Resource: "pods", Namespace: "default", Name: "x"}, 0)
	require.False(t, hit)
}

// A write keeps the object it wrote and a read what decoding gave; the
// next read of that revision gets an equal copy that shares nothing with
// the first, and a DELETED event's old value is not kept as the key's
// value at the deletion.
func TestRecentValuesKeepDecodedCopies(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	st := storetest.Store(t)
	r := New(Config{Store: st})
	key := store.Key{Resource: "pods", Namespace: "default", Name: "p"}
	created, err := r.Create(ctx, &api.Pod{ObjectMeta: api.ObjectMeta{Name: "p", Namespace: "default", Labels: map[string]string{"app": "a"}},
		Spec: api.PodSpec{Containers: []api.Container{{Name: "c", Image: "nginx"}}}})
	require.NoError(t, err)
	kept := func() api.Object {
		r.recent.mu.Lock()
		defer r.recent.mu.Unlock()
		return r.recent.m[key].decoded
	}
	require.Nil(t, kept(), "with no watch open, a write keeps its bytes only")
	w, err := r.Watch(ctx, "pods", "default", api.Meta(created).ResourceVersion)
	require.NoError(t, err)
	relabelled := api.DeepCopy(created)
	api.Meta(relabelled).Labels["app"] = "a2"
	created, err = r.Update(ctx, relabelled)
	require.NoError(t, err)
	require.NotNil(t, kept(), "with a watch open, a write keeps the object it wrote, as decoding would give it")
	require.Equal(t, api.Meta(created).ResourceVersion, api.Meta((<-w).Object).ResourceVersion)
	r.recent.forget(key)

	first, err := r.Get(ctx, "pods", "default", "p")
	require.NoError(t, err)
	require.NotNil(t, kept(), "a read keeps its decoded object")
	want := api.DeepCopy(first)
	api.Meta(first).Labels["app"] = "changed by the caller"
	first.(*api.Pod).Spec.Containers[0].Image = "changed"
	second, err := r.Get(ctx, "pods", "default", "p")
	require.NoError(t, err)
	require.Equal(t, want, second, "the kept object is the registry's own")

	// Status and spec updates start from the kept object and leave it be.
	running := api.DeepCopy(second).(*api.Pod)
	running.Status.Phase = api.PodRunning
	running.Status.Conditions = []api.PodCondition{{Type: "Ready", Status: api.ConditionTrue}}
	updated, err := r.UpdateStatus(ctx, running)
	require.NoError(t, err)
	_, err = r.Get(ctx, "pods", "default", "p")
	require.NoError(t, err)
	relabelled = api.DeepCopy(updated)
	api.Meta(relabelled).Labels["app"] = "b"
	second, err = r.Update(ctx, relabelled)
	require.NoError(t, err)
	_, err = r.Get(ctx, "pods", "default", "p")
	require.NoError(t, err)
	invalid := api.DeepCopy(second).(*api.Pod)
	invalid.Spec.Containers[0].Image = ""
	_, err = r.Update(ctx, invalid)
	require.True(t, api.IsInvalid(err), "%v", err)
	requireKeptIntact(t, r) // a refused update leaves the kept object in place

	w, err = r.Watch(ctx, "pods", "default", api.Meta(second).ResourceVersion)
	require.NoError(t, err)
	_, err = r.Delete(ctx, "pods", "default", "p", api.DeleteOptions{})
	require.NoError(t, err)
	ev := <-w
	require.Equal(t, EventDeleted, ev.Type)
	r.recent.mu.Lock()
	v, hit := r.recent.m[key]
	r.recent.mu.Unlock()
	// The first watch, still open, may keep an older revision's value late
	// (under the race detector it did): stale, which the cache allows.
	require.False(t, hit && v.Rev >= ev.Rev, "a DELETED event's value is not the key's value at its revision")
}

// A binding with a precondition starts from the node this registry last
// saw, and its guard catches a node that changed since: a node that went
// not ready behind its back refuses the binding, and one that came back
// ready behind its back accepts it.
func TestBindFromRecentValuesFollowsTheNode(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	st := storetest.Store(t)
	r, other := New(Config{Store: st}), New(Config{Store: st})
	setReady := func(reg *Registry, status api.ConditionStatus) {
		t.Helper()
		n, err := reg.Get(ctx, "nodes", "", "n1")
		require.NoError(t, err)
		n.(*api.Node).Status.Conditions = []api.NodeCondition{{Type: api.NodeReady, Status: status}}
		_, err = reg.UpdateStatus(ctx, n)
		require.NoError(t, err)
	}
	_, err := r.Create(ctx, &api.Node{ObjectMeta: api.ObjectMeta{Name: "n1"},
		Status: api.NodeStatus{Conditions: []api.NodeCondition{{Type: api.NodeReady, Status: api.ConditionTrue}}}})
	require.NoError(t, err)
	pods := map[string]string{}
	for _, name := range []string{"p1", "p2"} {
		p, err := r.Create(ctx, &api.Pod{ObjectMeta: api.ObjectMeta{Name: name, Namespace: "default"},
			Spec: api.PodSpec{Containers: []api.Container{{Name: "c", Image: "nginx"}}}})
		require.NoError(t, err)
		pods[name] = api.Meta(p).ResourceVersion
	}

	setReady(other, api.ConditionFalse)
	_, err = r.Bind(ctx, "default", "p1", "n1", pods["p1"])
	require.Error(t, err)
	require.Contains(t, err.Error(), "missing or not ready")
	got, err := r.Get(ctx, "pods", "default", "p1")
	require.NoError(t, err)
	require.Empty(t, got.(*api.Pod).Spec.NodeName)

	setReady(other, api.ConditionTrue)
	out, err := r.Bind(ctx, "default", "p2", "n1", pods["p2"])
	require.NoError(t, err, "a node seen not ready is read again")
	require.Equal(t, "n1", out.(*api.Pod).Spec.NodeName)
	requireKeptIntact(t, r)
	requireKeptIntact(t, other)
}

// requireKeptIntact checks that every kept decoded object still equals a
// fresh decode of its value: nobody changed what view handed out.
func requireKeptIntact(t *testing.T, r *Registry) {
	t.Helper()
	r.recent.mu.Lock()
	defer r.recent.mu.Unlock()
	for k, v := range r.recent.m {
		if v.decoded == nil {
			continue
		}
		fresh, err := decode(k.Resource, v.Value, v.Rev)
		require.NoError(t, err)
		require.Equal(t, fresh, v.decoded, "kept %s changed", k)
	}
}

// This package's tests check every object a write keeps against a decode
// (checkKept): selfcheck_test.go turns that on, as the convergeselfcheck
// build tag does for every package in `make test`.
func TestKeptObjectsAreCheckedInTests(t *testing.T) {
	require.True(t, checkingKept())
}

// The self-check panics on a kept object that is not what its value
// decodes to: it has teeth.
func TestCheckKeptPanicsOnAMismatch(t *testing.T) {
	pod := &api.Pod{ObjectMeta: api.ObjectMeta{Name: "p", Namespace: "default", ResourceVersion: "7"},
		Spec: api.PodSpec{Containers: []api.Container{{Name: "c", Image: "nginx"}}}}
	value, err := api.Marshal(pod)
	require.NoError(t, err)
	so := store.Object{Key: store.Key{Resource: "pods", Namespace: "default", Name: "p"}, Value: value, Rev: 7}
	kept, err := decode(so.Key.Resource, so.Value, so.Rev)
	require.NoError(t, err)
	require.NotPanics(t, func() { checkKept(so, kept) })
	kept.(*api.Pod).Spec.Containers[0].Image = "busybox"
	require.Panics(t, func() { checkKept(so, kept) })
}

// A shared watch hands out the kept object itself; a plain watch hands
// out an equal copy of it.
func TestWatchSharedHandsOutTheKeptObject(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	r := New(Config{Store: storetest.Store(t)})
	list, err := r.List(ctx, "pods", "default", ListOptions{})
	require.NoError(t, err)
	from := api.ListMetaOf(list).ResourceVersion
	shared, err := r.WatchShared(ctx, "pods", "default", from)
	require.NoError(t, err)
	plain, err := r.Watch(ctx, "pods", "default", from)
	require.NoError(t, err)
	_, err = r.Create(ctx, &api.Pod{ObjectMeta: api.ObjectMeta{Name: "p", Namespace: "default"},
		Spec: api.PodSpec{Containers: []api.Container{{Name: "c", Image: "nginx"}}}})
	require.NoError(t, err)
	s, p := <-shared, <-plain
	require.Equal(t, EventAdded, s.Type)
	r.recent.mu.Lock()
	kept := r.recent.m[store.Key{Resource: "pods", Namespace: "default", Name: "p"}].decoded
	r.recent.mu.Unlock()
	require.Same(t, kept, s.Object)
	require.NotSame(t, kept, p.Object)
	require.Equal(t, kept, p.Object)
}

// A write's watch event usually arrives before the write's answer: it
// finds the object kept for the write by the value's bytes, at the
// event's revision; other bytes find nothing.
func TestRecentValuesServeAWriteBeforeItsAnswer(t *testing.T) {
	var c recentValues
	k := store.Key{Resource: "pods", Namespace: "default", Name: "p"}
	p := &api.Pod{ObjectMeta: api.ObjectMeta{Name: "p", Namespace: "default", ResourceVersion: "3"},
		Spec: api.PodSpec{Containers: []api.Container{{Name: "c", Image: "nginx"}}}}
	value, err := encode(p)
	require.NoError(t, err)
	pending := c.startWrite(k, value, p)
	require.NotNil(t, pending)

	require.Nil(t, c.kept(store.Object{Key: k, Value: []byte(`{"other":"bytes"}`), Rev: 7}))
	got := c.kept(store.Object{Key: k, Value: value, Rev: 7})
	require.Same(t, p, got, "the event of the write finds its object, the one written")
	want, err := decode("pods", value, 7)
	require.NoError(t, err)
	require.Equal(t, want, got)

	require.True(t, c.wrote(pending, store.Object{Key: k, Value: value, Rev: 7}), "the object is shared")
	require.Same(t, got, c.kept(store.Object{Key: k, Value: value, Rev: 7}), "the answer keeps what the event settled")

	// A write whose pending object another write to the key replaced
	// before its answer keeps nothing: its object is still the writer's.
	q := api.DeepCopy(p)
	q.Spec.Containers[0].Image = "nginx:2"
	first := c.startWrite(k, mustEncode(t, q), q)
	c.startWrite(k, value, api.DeepCopy(p))
	require.False(t, c.wrote(first, store.Object{Key: k, Value: mustEncode(t, q), Rev: 9}))
}

func mustEncode(t *testing.T, obj api.Object) []byte {
	b, err := encode(obj)
	require.NoError(t, err)
	return b
}
