package cluster

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/impl/controller"
	"github.com/converge-dev/converge/impl/store/storetest"
	"github.com/converge-dev/converge/model"
)

// convergeWith starts a running cluster of cfg's nodes and controllers on
// a fresh store, with a 20 ms tick unless cfg sets one, applies a
// Deployment of replicas pods and waits up to 30 s for convergence; ranOut
// says whether the wait saw it only as it ran out.
func convergeWith(t *testing.T, cfg RunningConfig, replicas int) (r *Running, snap *model.Snapshot, ranOut bool) {
	t.Helper()
	cfg.Store = storetest.Store(t)
	if cfg.Tick == 0 {
		cfg.Tick = 20 * time.Millisecond
	}
	r, err := StartRunning(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	r.mustApply(t, "apply myapp replicas="+strconv.Itoa(replicas)+" image=nginx:1")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if snap, err = r.WaitConverged(ctx, 2*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	return r, snap, ctx.Err() != nil
}

// TestWaitConvergedSeesPastANeverIdleController: a controller that is
// always reconciling (5 ms a pass, then again at once) keeps the polls
// busy, so only WaitConverged's forced snapshots can see the converged
// cluster, and they do: with them disabled, the wait runs out.
func TestWaitConvergedSeesPastANeverIdleController(t *testing.T) {
	spinner := ControllerSpec{Name: "spinner", Watches: []model.Kind{model.KindDeployment},
		New: func(ControllerEnv) controller.Reconciler {
			return userController(func(ctx context.Context, req controller.Request) (controller.Result, error) {
				time.Sleep(5 * time.Millisecond)
				return controller.Result{RequeueAfter: time.Nanosecond}, nil
			})
		}}
	r, snap, ranOut := convergeWith(t, RunningConfig{Nodes: 2, Controllers: []ControllerSpec{spinner}}, 2)
	if ranOut {
		t.Error("convergence was seen only when the wait ran out")
	}
	if n := readyPods(snap); n != 2 {
		t.Errorf("%d ready pods at convergence, want 2", n)
	}
	for range 100 {
		if r.busy() {
			return
		}
		time.Sleep(time.Millisecond)
	}
	t.Error("the spinner went idle: the test did not exercise the forced snapshots")
}

// TestWaitConvergedPutsOffForcedSnapshotsWhileWritten: a controller that
// never goes idle and annotates its Deployment on every pass for 1.5 s
// keeps the converged state from being seen until its writes stop: the
// forced snapshot due at 1 s waits for them to pause. Without the pause
// rule it is taken at 1 s, and the wait returns before the writes end.
func TestWaitConvergedPutsOffForcedSnapshotsWhileWritten(t *testing.T) {
	const writing = 1500 * time.Millisecond
	stopAt := time.Now().Add(writing)
	writer := ControllerSpec{Name: "scribbler", Watches: []model.Kind{model.KindDeployment},
		New: func(env ControllerEnv) controller.Reconciler {
			n := 0
			return userController(func(ctx context.Context, req controller.Request) (controller.Result, error) {
				if time.Now().Before(stopAt) {
					if obj, err := env.Client.Get(ctx, "deployments", req.Namespace, req.Name); err == nil {
						n++
						d := obj.(*api.Deployment)
						d.Annotations = map[string]string{"scribbled": strconv.Itoa(n)}
						_, _ = env.Client.Update(ctx, d) // a conflict with the controller's status writes is retried next pass
					}
				}
				time.Sleep(2 * time.Millisecond)
				return controller.Result{RequeueAfter: time.Nanosecond}, nil
			})
		}}
	convergeWith(t, RunningConfig{Nodes: 2, Controllers: []ControllerSpec{writer}}, 2)
	if early := time.Until(stopAt); early > 0 {
		t.Errorf("convergence was seen %v before the writes stopped", early.Round(time.Millisecond))
	}
	if late := -time.Until(stopAt); late > maxForcedSnapshotGap {
		t.Errorf("convergence was seen %v after the writes stopped", late.Round(time.Millisecond))
	}
}

// TestBusyUntilTheInformersHearOfTheWrites: with every queue and inbox
// empty, a write whose event no informer has had yet keeps the cluster
// busy, so WaitConverged takes no snapshot that the event would outdate.
func TestBusyUntilTheInformersHearOfTheWrites(t *testing.T) {
	r, _, _ := convergeWith(t, RunningConfig{Nodes: 1, Tick: time.Hour}, 1)
	deadline := time.Now().Add(5 * time.Second)
	for r.busy() {
		if time.Now().After(deadline) {
			t.Fatal("never idle after convergence")
		}
		time.Sleep(time.Millisecond)
	}
	rev, err := r.store.Rev(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	r.env.noteWrite(model.KindPod, rev+1) // a pod written, its event not yet out
	if !r.busy() {
		t.Error("idle while the pod informer has yet to hear of a write")
	}
}
