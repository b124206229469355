package cluster

import (
	"context"
	"net/http/httptest"
	"testing"

	"github.com/converge-dev/converge/impl/apiserver"
	"github.com/converge-dev/converge/impl/client"
	"github.com/converge-dev/converge/impl/controller"
	"github.com/converge-dev/converge/impl/registry"
	"github.com/converge-dev/converge/impl/store/storetest"
	"github.com/converge-dev/converge/model"
)

// TestANoOpUpdateOverHTTPIsNoWrite: over HTTP the apiserver skips an
// update that changes nothing, as kube-apiserver does: it keeps the
// resourceVersion and tells no watcher. A user's controller that sends
// one (its Deployment back as its cache holds it, and the status too)
// wrote nothing, so no write is recorded, and the invariants (revisions
// never go backwards) see nothing at the object's old revision.
func TestANoOpUpdateOverHTTPIsNoWrite(t *testing.T) {
	st := storetest.Store(t)
	srv, err := apiserver.New(apiserver.Config{Registry: registry.New(registry.Config{Store: st})})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(ts.Close)
	c, err := client.HTTP(client.HTTPConfig{Server: ts.URL})
	if err != nil {
		t.Fatal(err)
	}
	sent := 0
	spec := ControllerSpec{Name: "noop-writer", Watches: []model.Kind{model.KindDeployment},
		New: func(env ControllerEnv) controller.Reconciler {
			return userController(func(ctx context.Context, req controller.Request) (controller.Result, error) {
				d, err := env.Client.Get(ctx, "deployments", req.Namespace, req.Name)
				if err != nil {
					return controller.Result{}, err
				}
				if d, err = env.Client.Update(ctx, d); err != nil {
					return controller.Result{}, err
				}
				if _, err = env.Client.UpdateStatus(ctx, d); err != nil {
					return controller.Result{}, err
				}
				sent++
				return controller.Result{}, nil
			})
		}}
	s, err := NewStepped(SteppedConfig{Store: st, Client: c, Controllers: []ControllerSpec{spec}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	chk := model.NewChecker()
	for _, line := range []string{"apply web replicas=1 image=nginx:1", "deliver noop-writer deployments", "reconcile noop-writer default/web"} {
		r := mustStep(t, s, line)
		if err := chk.Check(s.Snapshot(), r.Writes); err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		if line == "reconcile noop-writer default/web" && len(r.Writes) != 0 {
			t.Errorf("the no-op updates were recorded as writes: %v", r.Writes)
		}
	}
	if sent != 1 {
		t.Fatalf("the controller sent its no-op updates %d times, want 1", sent)
	}
	if errs := s.Errors(); len(errs) > 0 {
		t.Errorf("errors: %v", errs)
	}
}
