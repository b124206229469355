package cluster

import (
	"context"
	"testing"
	"time"

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
