package cluster

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/impl/controller"
	"github.com/converge-dev/converge/impl/store/storetest"
	"github.com/converge-dev/converge/model"
)

// TestTransientAPIErrorsMatchTheModel arms a 503, a 429 and a 504 on
// built-in components in lockstep: the armed write fails on both sides,
// nothing is recorded, the key is retried and the flow still converges.
func TestTransientAPIErrorsMatchTheModel(t *testing.T) {
	p := newPair(t)
	p.script("add-node node-1", "apply-service web app=web port=80", "apply web replicas=2 image=nginx:1",
		"api-error deployment-controller 503",
		"deliver deployment-controller deployments", "reconcile deployment-controller web",
		"api-error replicaset-controller 429", "api-error scheduler 504")
	if got := len(p.s.Step(model.Action{Op: model.OpAPIError, Who: model.Scheduler, N: 503}).Writes); got != 0 {
		t.Fatalf("armed twice: %d writes", got)
	}
	p.quiesce()
}

// userController is a test controller built from a function.
type userController func(ctx context.Context, req controller.Request) (controller.Result, error)

func (f userController) Reconcile(ctx context.Context, req controller.Request) (controller.Result, error) {
	return f(ctx, req)
}

// steppedWith starts a stepped cluster whose endpoints controller is rec.
func steppedWith(t *testing.T, rec func(env ControllerEnv) controller.Reconciler) *Stepped {
	t.Helper()
	s, err := NewStepped(SteppedConfig{Store: storetest.Store(t), Controllers: []ControllerSpec{{Name: model.EndpointsController, New: rec}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

func mustStep(t *testing.T, s *Stepped, line string) model.Result {
	t.Helper()
	a, err := model.ParseAction(line)
	if err != nil {
		t.Fatal(err)
	}
	r := s.Step(a)
	if r.Err != nil && errors.Is(r.Err, model.ErrNotEnabled) {
		t.Fatalf("%s: %v", line, r.Err)
	}
	return r
}

func queued(s *Stepped, who, key string) bool {
	return contains(s.comps[who].queue.Keys(), key)
}

// TestUserControllerSeesTransientErrorsAndDecidesTheRetry: the armed 503
// reaches the controller's read as a ServiceUnavailable Status; returning
// nil forgets the key, returning the error retries it.
func TestUserControllerSeesTransientErrorsAndDecidesTheRetry(t *testing.T) {
	var seen []error
	swallow := true
	s := steppedWith(t, func(env ControllerEnv) controller.Reconciler {
		return userController(func(ctx context.Context, req controller.Request) (controller.Result, error) {
			_, err := env.Client.Get(ctx, "services", req.Namespace, req.Name)
			seen = append(seen, err)
			if swallow {
				return controller.Result{}, nil
			}
			return controller.Result{}, err
		})
	})
	ep := model.EndpointsController
	mustStep(t, s, "apply-service web app=web port=80")
	mustStep(t, s, "deliver "+ep+" services")
	mustStep(t, s, "api-error "+ep+" 503")
	mustStep(t, s, "reconcile "+ep+" web")
	if len(seen) != 1 || api.CodeOf(seen[0]) != 503 {
		t.Fatalf("the controller saw %v, want a 503", seen)
	}
	if queued(s, ep, "default/web") {
		t.Fatal("nil was returned, yet the key was queued again")
	}
	swallow = false
	mustStep(t, s, "apply-service web app=web port=81")
	mustStep(t, s, "deliver "+ep+" services")
	mustStep(t, s, "api-error "+ep+" 429")
	mustStep(t, s, "reconcile "+ep+" web")
	if api.CodeOf(seen[1]) != 429 || !queued(s, ep, "default/web") {
		t.Fatalf("saw %v; an error must requeue the key", seen[1])
	}
	mustStep(t, s, "reconcile "+ep+" web")
	if seen[2] != nil || queued(s, ep, "default/web") {
		t.Fatalf("the retry saw %v; a nil return must forget the key", seen[2])
	}
}

// TestRequeueAfterIsATimerOnTheLogicalClock: a controller that resyncs
// every two seconds quiesces at once, and its key comes back after two
// ticks, not before.
func TestRequeueAfterIsATimerOnTheLogicalClock(t *testing.T) {
	n := 0
	s := steppedWith(t, func(env ControllerEnv) controller.Reconciler {
		return userController(func(context.Context, controller.Request) (controller.Result, error) {
			n++
			return controller.Result{RequeueAfter: 2 * time.Second}, nil
		})
	})
	ep := model.EndpointsController
	mustStep(t, s, "apply-service web app=web port=80")
	mustStep(t, s, "deliver "+ep+" services")
	mustStep(t, s, "deliver garbage-collector services") // the collector follows Services too
	mustStep(t, s, "reconcile "+ep+" web")
	if a, ok := s.NextQuiesceStep(); ok {
		t.Fatalf("a pending RequeueAfter kept the cluster busy: %s", a)
	}
	mustStep(t, s, "tick")
	if queued(s, ep, "default/web") {
		t.Fatal("due after two ticks, queued after one")
	}
	mustStep(t, s, "tick")
	if !queued(s, ep, "default/web") {
		t.Fatal("not queued when due")
	}
	mustStep(t, s, "reconcile "+ep+" web")
	if n != 2 {
		t.Fatalf("%d reconciles, want 2", n)
	}
}

// TestAFailedWriteDoesNotStopTheReconcile: after a conflict the controller
// writes again in the same reconcile, as its code decides, and the write
// lands; only the crash point stops writes.
func TestAFailedWriteDoesNotStopTheReconcile(t *testing.T) {
	s := steppedWith(t, func(env ControllerEnv) controller.Reconciler {
		return userController(func(ctx context.Context, req controller.Request) (controller.Result, error) {
			e := &api.Endpoints{TypeMeta: api.TypeMeta{Kind: "Endpoints", APIVersion: "v1"}, ObjectMeta: api.ObjectMeta{Name: req.Name, Namespace: req.Namespace}}
			e.ResourceVersion = "1" // stale: a conflict
			if _, err := env.Client.Update(ctx, e); err == nil {
				t.Error("a stale update did not fail")
			}
			e.ResourceVersion = ""
			_, err := env.Client.Create(ctx, e)
			return controller.Result{}, err
		})
	})
	ep := model.EndpointsController
	mustStep(t, s, "apply-service web app=web port=80")
	mustStep(t, s, "deliver "+ep+" services")
	r := mustStep(t, s, "reconcile "+ep+" web")
	if len(r.Writes) != 2 || r.Writes[0].Err == nil || r.Writes[1].Err != nil {
		t.Fatalf("writes %v, want a failed update then a create", r.Writes)
	}
	mustStep(t, s, "apply-service web app=web port=81")
	mustStep(t, s, "deliver "+ep+" services")
	r = mustStep(t, s, "reconcile "+ep+" web crash-after=1")
	if len(r.Writes) != 1 {
		t.Fatalf("the crash point let %d writes through, want 1", len(r.Writes))
	}
}

// TestADeleteOfATerminatingPodWritesNothing: a delete without a
// precondition, as upstream's replicaset controller sends, that finds the
// pod already terminating is recorded as no write, so "revisions never go
// backwards" has nothing to say about it.
func TestADeleteOfATerminatingPodWritesNothing(t *testing.T) {
	s := steppedWith(t, func(env ControllerEnv) controller.Reconciler {
		return userController(func(ctx context.Context, req controller.Request) (controller.Result, error) {
			_, err := env.Client.Delete(ctx, "pods", model.DefaultNamespace, "p", api.DeleteOptions{})
			return controller.Result{}, err
		})
	})
	ep := model.EndpointsController
	for _, l := range []string{"add-node node-1", "create-pod p image=nginx:1", "deliver scheduler nodes", "deliver scheduler pods", "reconcile scheduler p",
		"apply-service web app=web port=80", "deliver " + ep + " services"} {
		mustStep(t, s, l)
	}
	chk := model.NewChecker()
	r := mustStep(t, s, "reconcile "+ep+" web")
	if len(r.Writes) != 1 || !model.MetaOf(r.Writes[0].After).Deleting {
		t.Fatalf("first delete: %v, want the pod marked terminating", r.Writes)
	}
	if err := chk.Check(s.Snapshot(), r.Writes); err != nil {
		t.Fatal(err)
	}
	mustStep(t, s, "apply-service web app=web port=81")
	mustStep(t, s, "deliver "+ep+" services")
	if r = mustStep(t, s, "reconcile "+ep+" web"); len(r.Writes) != 0 {
		t.Fatalf("the second delete recorded %v, want no write", r.Writes)
	}
}
