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
	rev, err := parseRV(created.GetObjectMeta().ResourceVersion)
	require.NoError(t, err)
	_, hit := r.recent.at(key, rev)
	require.True(t, hit, "a create is remembered")

	running := api.DeepCopy(created).(*api.Pod)
	running.Status.Phase = api.PodRunning
	updated, err := r.UpdateStatus(ctx, running)
	require.NoError(t, err)
	require.Equal(t, api.PodRunning, updated.(*api.Pod).Status.Phase)
	rev, err = parseRV(updated.GetObjectMeta().ResourceVersion)
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
	fresh.GetObjectMeta().ResourceVersion = formatRV(behind)
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
		c.put(store.Key{Resource: "pods", Namespace: "default", Name: formatRV(int64(i))}, nil, int64(i+1))
	}
	require.Len(t, c.m, recentCap)
	_, hit := c.at(store.Key{Resource: "pods", Namespace: "default", Name: "x"}, 0)
	require.False(t, hit)
}
