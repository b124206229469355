package clients

import (
	"context"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// counter counts a ConfigMap's data["n"] up to 3, one step per
// reconcile, reading through the manager's cached client: it only gets
// past a step once its cache has seen its own previous write (a stale
// read makes the update conflict, and the request is retried).
type counter struct {
	c      client.Client
	passes atomic.Int32
}

func (r *counter) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	r.passes.Add(1)
	var cm corev1.ConfigMap
	if err := r.c.Get(ctx, req.NamespacedName, &cm); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	n, _ := strconv.Atoi(cm.Data["n"])
	if n >= 3 {
		return reconcile.Result{}, nil
	}
	if cm.Data == nil {
		cm.Data = map[string]string{}
	}
	cm.Data["n"] = strconv.Itoa(n + 1)
	return reconcile.Result{}, r.c.Update(ctx, &cm)
}

// TestControllerRuntimeManagerWithLeaderElection: a manager with default
// settings and leader election on takes a coordination.k8s.io Lease,
// syncs its cache, and its reconciler sees its own writes.
func TestControllerRuntimeManagerWithLeaderElection(t *testing.T) {
	c := start(t)
	mgr, err := ctrl.NewManager(c.cfg, ctrl.Options{
		LeaderElection:          true,
		LeaderElectionID:        "e2e-counter",
		LeaderElectionNamespace: "default",
		Metrics:                 metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress:  "0",
	})
	if err != nil {
		t.Fatal(err)
	}
	r := &counter{c: mgr.GetClient()}
	if err := ctrl.NewControllerManagedBy(mgr).For(&corev1.ConfigMap{}).Complete(r); err != nil {
		t.Fatal(err)
	}
	runManager(t, mgr)
	select {
	case <-mgr.Elected():
	case <-time.After(30 * time.Second):
		t.Fatal("not elected leader after 30s")
	}
	if _, err := c.cs.CoreV1().ConfigMaps("default").Create(ctx(t), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "count"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	var cm corev1.ConfigMap
	eventually(t, "the reconciler to count to 3", func() bool {
		err := mgr.GetAPIReader().Get(context.Background(), types.NamespacedName{Namespace: "default", Name: "count"}, &cm)
		return err == nil && cm.Data["n"] == "3"
	})
	var lease coordinationv1.Lease
	if err := mgr.GetAPIReader().Get(ctx(t), types.NamespacedName{Namespace: "default", Name: "e2e-counter"}, &lease); err != nil {
		t.Fatal(err)
	}
	if lease.Spec.HolderIdentity == nil || *lease.Spec.HolderIdentity == "" || lease.Spec.RenewTime == nil {
		t.Fatalf("leader lease %+v", lease.Spec)
	}
	if c.watchLists.Load() == 0 {
		t.Fatal("controller-runtime's cache did not stream its list")
	}
	if r.passes.Load() < 3 {
		t.Fatalf("%d reconciles for 3 steps", r.passes.Load())
	}
}
