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
	r, err := StartRunning(RunningConfig{Store: storetest.Store(t), Nodes: 2, Tick: 20 * time.Millisecond, Controllers: []ControllerSpec{spinner}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	r.mustApply(t, "apply myapp replicas=2 image=nginx:1")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	snap, err := r.WaitConverged(ctx, 2*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if ctx.Err() != nil {
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
	var stopAt time.Time
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
	r, err := StartRunning(RunningConfig{Store: storetest.Store(t), Nodes: 2, Tick: 20 * time.Millisecond, Controllers: []ControllerSpec{writer}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	stopAt = time.Now().Add(writing)
	r.mustApply(t, "apply myapp replicas=2 image=nginx:1")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := r.WaitConverged(ctx, 2*time.Millisecond); err != nil {
		t.Fatal(err)
	}
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
	r, err := StartRunning(RunningConfig{Store: storetest.Store(t), Nodes: 1, Tick: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	r.mustApply(t, "apply myapp replicas=1 image=nginx:1")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := r.WaitConverged(ctx, 2*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for r.busy() {
		if time.Now().After(deadline) {
			t.Fatal("never idle after convergence")
		}
		time.Sleep(time.Millisecond)
	}
	rev, err := r.store.Rev(ctx)
	if err != nil {
		t.Fatal(err)
	}
	r.env.noteWrite(model.KindPod, rev+1) // a pod written, its event not yet out
	if !r.busy() {
		t.Error("idle while the pod informer has yet to hear of a write")
	}
}
