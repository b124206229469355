package registry_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/converge-dev/converge/impl/api"
)

// TestConcurrentSpecAndStatusWritesKeepEachOther races unconditional spec
// updates against status updates: neither may overwrite the other's half
// with a stale copy.
func TestConcurrentSpecAndStatusWritesKeepEachOther(t *testing.T) {
	r, ctx := newRegistry(t)
	mustCreate(t, ctx, r, deployment("myapp", 1))
	const n = 15
	var wg sync.WaitGroup
	errs := make(chan error, 2*n)
	wg.Add(2)
	go func() {
		defer wg.Done()
		for i := 1; i <= n; i++ {
			d := deployment("myapp", int32(i)) // no resourceVersion: last write wins
			if _, err := r.Update(ctx, d); err != nil {
				errs <- err
			}
		}
	}()
	go func() {
		defer wg.Done()
		for i := 1; i <= n; i++ {
			d := deployment("myapp", 0)
			d.Status.Replicas = int32(i)
			if _, err := r.UpdateStatus(ctx, d); err != nil {
				errs <- err
			}
		}
	}()
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	got, err := r.Get(ctx, "deployments", "default", "myapp")
	if err != nil {
		t.Fatal(err)
	}
	d := got.(*api.Deployment)
	if *d.Spec.Replicas != n || d.Status.Replicas != n || d.Generation != n {
		t.Fatalf("spec.replicas %d status.replicas %d generation %d, want %d each", *d.Spec.Replicas, d.Status.Replicas, d.Generation, n)
	}
}

func TestCancelledContextIsTimeoutAndCanceled(t *testing.T) {
	r, ctx := newRegistry(t)
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	_, err := r.Get(cctx, "pods", "default", "p")
	if !errors.Is(err, context.Canceled) || api.ReasonOf(err) != api.StatusReasonTimeout {
		t.Fatalf("got %v (reason %q), want Timeout wrapping context.Canceled", err, api.ReasonOf(err))
	}
}
