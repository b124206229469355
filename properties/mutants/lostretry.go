package mutants

import (
	"context"
	"fmt"

	"github.com/converge-dev/converge/examples/replicaset"
	"github.com/converge-dev/converge/impl/cluster"
	ctrl "github.com/converge-dev/converge/impl/controller"
)

// swallower is the example's replicaset controller with the lost-retry bug
// (class 4): it logs a failed write and returns nil, so the key is
// forgotten. When nothing else changes, nobody ever retries the write: a
// create refused with 503 leaves the ReplicaSet a pod short for good.
type swallower struct {
	inner ctrl.Reconciler
	log   []string // what it "logged"; kept in memory, lost at a crash
}

var _ ctrl.Reconciler = (*swallower)(nil)

func newSwallower(env cluster.ControllerEnv) ctrl.Reconciler {
	return &swallower{inner: replicaset.New(env)}
}

func (s *swallower) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	res, err := s.inner.Reconcile(ctx, req)
	if err != nil {
		s.log = append(s.log, fmt.Sprintf("reconcile %s: %v", req.Name, err))
		return ctrl.Result{}, nil
	}
	return res, nil
}
