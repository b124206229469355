package operator_test

import (
	"context"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/converge-dev/converge/impl/apiserver"
	"github.com/converge-dev/converge/impl/operator"
	"github.com/converge-dev/converge/impl/registry"
	"github.com/converge-dev/converge/impl/store"
	"github.com/converge-dev/converge/impl/store/storetest"
)

// A write is reported with its own revision, whatever else writes to the
// etcd meanwhile (another cluster's store on it, as a check's reference
// run is): an update's and a delete's answer give it, and an update that
// took the last finalizer is reported at its object's removal.
func TestWritesAreNotedAtTheirOwnRevision(t *testing.T) {
	ctx := context.Background()
	st, other := storetest.Store(t), storetest.Store(t)
	srv, err := apiserver.New(apiserver.Config{Registry: registry.New(registry.Config{Store: st})})
	require.NoError(t, err)
	var noted []int64
	c, err := operator.NewClient(srv.Handler(), clientgoscheme.Scheme, func(_ string, rev int64) { noted = append(noted, rev) })
	require.NoError(t, err)
	// Another cluster writes all along, and moves the etcd's revision on.
	busy, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; busy.Err() == nil && i < 5000; i++ {
			_, _ = other.Create(busy, store.Key{Resource: "configmaps", Namespace: "x", Name: strconv.Itoa(i)}, []byte("{}"))
		}
	}()
	defer func() { stop(); <-done }()
	rv := func(o metav1.Object) int64 {
		n, err := strconv.ParseInt(o.GetResourceVersion(), 10, 64)
		require.NoError(t, err)
		return n
	}

	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "held", Namespace: "default", Finalizers: []string{"example.com/hold"}}}
	require.NoError(t, c.Create(ctx, cm))
	require.Equal(t, []int64{rv(cm)}, noted, "a create, at its object's revision")
	require.NoError(t, c.Delete(ctx, cm)) // marks it: the finalizer holds it
	require.NoError(t, c.Get(ctx, client.ObjectKeyFromObject(cm), cm))
	require.Equal(t, rv(cm), noted[1], "a delete that only marks, at the marking's revision")

	cm.Finalizers = nil
	require.NoError(t, c.Update(ctx, cm)) // takes the last finalizer: the object goes
	var removal int64
	for ev := range st.Watch(ctxWithCancel(t), "configmaps", "default", noted[1]) {
		require.NoError(t, ev.Err)
		if ev.Type == store.Deleted {
			removal = ev.Object.Rev
			break
		}
	}
	require.Len(t, noted, 3)
	require.Equal(t, removal, noted[2], "the update that removed it, at the removal's revision, not at the etcd's")
}

func ctxWithCancel(t *testing.T) context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	return ctx
}

// A write request that stores nothing is not a write: no watcher hears of
// it, and a resync that makes only such requests is at a fixed point. An
// apply of what is there, an update that changes nothing, a second delete
// of an object that is terminating, and a dry run store nothing.
func TestRequestsThatStoreNothingAreNotWrites(t *testing.T) {
	ctx := context.Background()
	srv, err := apiserver.New(apiserver.Config{Registry: registry.New(registry.Config{Store: storetest.Store(t)})})
	require.NoError(t, err)
	var noted []int64
	c, err := operator.NewClient(srv.Handler(), clientgoscheme.Scheme, func(_ string, rev int64) { noted = append(noted, rev) })
	require.NoError(t, err)
	apply := func() {
		cm := &corev1.ConfigMap{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
			ObjectMeta: metav1.ObjectMeta{Name: "applied", Namespace: "default"}, Data: map[string]string{"k": "v"}}
		require.NoError(t, c.Patch(ctx, cm, client.Apply, client.FieldOwner("probe"), client.ForceOwnership)) //nolint:staticcheck // the apply patch as operators send it
	}
	apply()
	require.Len(t, noted, 1, "the first apply creates")
	apply()
	require.Len(t, noted, 1, "an apply of what is there stores nothing")

	cm := &corev1.ConfigMap{}
	require.NoError(t, c.Get(ctx, client.ObjectKey{Namespace: "default", Name: "applied"}, cm))
	require.NoError(t, c.Update(ctx, cm))
	require.Len(t, noted, 1, "an update that changes nothing stores nothing")
	cm.Data["k"] = "w"
	require.NoError(t, c.Update(ctx, cm, client.DryRunAll))
	require.Len(t, noted, 1, "a dry run stores nothing")

	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "going"}}
	require.NoError(t, c.Create(ctx, ns))
	require.NoError(t, c.Delete(ctx, ns))
	require.Len(t, noted, 3, "a namespace's create and delete, which marks it terminating")
	require.NoError(t, c.Delete(ctx, ns))
	require.Len(t, noted, 3, "a second delete of a terminating namespace stores nothing")
}
