package operator

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"runtime/debug"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// steppedManager is the manager the user's Setup gets: controller-
// runtime's own, except that the controllers added to it get stepped
// queues and observed reconcilers.
type steppedManager struct {
	manager.Manager
	h *Host
}

func (m *steppedManager) Add(r manager.Runnable) error {
	if err := m.h.adopt(r, m.GetRESTMapper()); err != nil {
		return err
	}
	return m.Manager.Add(r)
}

// queueFunc is controller-runtime's NewQueue option for reconcile.Request.
type queueFunc = func(string, workqueue.TypedRateLimiter[reconcile.Request]) workqueue.TypedRateLimitingInterface[reconcile.Request]

// adopt puts a stepped queue and an observing reconciler into a controller
// that the builder made: the fields controller-runtime's NewQueue option
// and its Do would set. Other runnables are left alone.
func (h *Host) adopt(r manager.Runnable, mapper meta.RESTMapper) error {
	v := reflect.ValueOf(r)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return nil
	}
	s := v.Elem()
	nq, do, name := s.FieldByName("NewQueue"), s.FieldByName("Do"), s.FieldByName("Name")
	if !nq.IsValid() || !do.IsValid() || !name.IsValid() || name.Kind() != reflect.String {
		return nil
	}
	var q queueFunc
	if nq.Type() != reflect.TypeOf(q) || do.Type() != reflect.TypeFor[reconcile.TypedReconciler[reconcile.Request]]() {
		return fmt.Errorf("operator: controller %s: converge steps controllers of reconcile.Request only", name.String())
	}
	ctrl := name.String()
	workers := 1
	if mc := s.FieldByName("MaxConcurrentReconciles"); mc.IsValid() && mc.CanInt() && mc.Int() > 1 {
		workers = int(mc.Int())
	}
	q = func(_ string, limiter workqueue.TypedRateLimiter[reconcile.Request]) workqueue.TypedRateLimitingInterface[reconcile.Request] {
		sq := newSteppedQueue(limiter, h.clock)
		h.mu.Lock()
		h.queues[ctrl] = sq
		h.mu.Unlock()
		return sq
	}
	inner, _ := do.Interface().(reconcile.TypedReconciler[reconcile.Request])
	if inner == nil {
		return fmt.Errorf("operator: controller %s has no reconciler", ctrl)
	}
	nq.Set(reflect.ValueOf(q))
	ob := &observed{inner: inner, h: h, name: ctrl}
	ob.primary, ob.primaryKind, ob.hasPrimary = primaryOf(s, mapper)
	do.Set(reflect.ValueOf(reconcile.TypedReconciler[reconcile.Request](ob)))
	h.mu.Lock()
	h.adopted = append(h.adopted, ctrl)
	h.workers[ctrl] = workers
	h.mu.Unlock()
	return nil
}

// observed is the user's reconciler with its panics and errors recorded.
type observed struct {
	inner reconcile.TypedReconciler[reconcile.Request]
	h     *Host
	name  string
	// primary is the resource of the controller's For kind, if known.
	primary     schema.GroupResource
	primaryKind schema.GroupKind
	hasPrimary  bool
}

func (o *observed) Reconcile(ctx context.Context, req reconcile.Request) (res reconcile.Result, err error) {
	defer func() {
		if p := recover(); p != nil {
			o.h.fail(Failure{Item: Item{o.name, req}, Panic: p, Stack: string(debug.Stack())})
			err = fmt.Errorf("panic: %v", p)
		}
	}()
	o.h.mu.Lock()
	p := o.h.active[Item{o.name, req}]
	o.h.mu.Unlock()
	if p == nil {
		p = &pass{Item: Item{o.name, req}, life: &instance{}, budget: -1}
	}
	gone := o.goneAtStart(req, p)
	if o.hasPrimary {
		o.h.beginGenerations(p, o.primary, o.primaryKind)
	}
	res, err = o.inner.Reconcile(context.WithValue(ctx, passKey{}, p), req)
	o.h.settled(p, res, err)
	o.h.mu.Lock()
	blamed, failed, crashed := p.faulted, p.failed, p.life.crashed
	o.h.mu.Unlock()
	switch {
	case err == nil || blamed:
	case o.ownObjectGone(err, req, gone):
		o.h.fail(Failure{Item: Item{o.name, req}, Oracle: "not found of its own object",
			Err: fmt.Errorf("%w: the object is gone and controller-runtime retries the error with backoff forever (ignore it: client.IgnoreNotFound)", err)})
	case expectedOfACache(err):
	case o.h.userInput(err):
		o.h.mu.Lock()
		p.refused = err.Error()
		o.h.mu.Unlock()
	default:
		o.h.fail(Failure{Item: Item{o.name, req}, Err: err})
	}
	if failed && !crashed && err == nil && res.IsZero() {
		o.h.fail(Failure{Item: Item{o.name, req}, Oracle: "swallowed error",
			Err: errors.New("a request failed with a 500, and the reconcile returned success without a requeue: nothing will retry it")})
	}
	return res, err
}

// userInput says whether err is the apiserver refusing (422) values that
// all came verbatim from the custom resources the user wrote: a cluster
// refuses the same input, and the user is the one to fix it. A 422 on any
// value the operator made up stays a failure.
func (h *Host) userInput(err error) bool {
	if h.cfg.UserInput == nil {
		return false
	}
	values, ok := refusedValues(err)
	if !ok {
		return false
	}
	for _, v := range values {
		if !h.cfg.UserInput(v) {
			return false
		}
	}
	return true
}
