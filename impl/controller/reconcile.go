package controller

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/converge-dev/converge/impl/api"
)

// Request names the object to reconcile. It carries identity only:
// reconciliation is level-based, so the Reconciler reads the current state
// itself rather than being told what changed.
type Request struct {
	Namespace, Name string
}

// Key is the queue key of r: "namespace/name", or "name" when cluster-scoped.
func (r Request) Key() string { return Key(r.Namespace, r.Name) }

// String is the key, for messages.
func (r Request) String() string { return r.Key() }

// RequestFor is the Request naming obj.
func RequestFor(obj api.Object) Request {
	m := api.Meta(obj)
	return Request{Namespace: m.Namespace, Name: m.Name}
}

// Key builds a queue and cache key: "namespace/name", or "name" when
// namespace is empty.
func Key(namespace, name string) string {
	if namespace == "" {
		return name
	}
	return namespace + "/" + name
}

// KeyOf is the key of obj.
func KeyOf(obj api.Object) string {
	m := api.Meta(obj)
	return Key(m.Namespace, m.Name)
}

// ParseKey is the inverse of Key.
func ParseKey(key string) (Request, error) {
	ns, name, found := strings.Cut(key, "/")
	if !found {
		ns, name = "", key
	}
	if name == "" || strings.Contains(name, "/") || (found && ns == "") {
		return Request{}, fmt.Errorf("%w: %q", ErrBadKey, key)
	}
	return Request{Namespace: ns, Name: name}, nil
}

// Result says whether and when to reconcile the same Request again.
type Result struct {
	// Requeue asks for another pass after the per-key rate-limit backoff.
	Requeue bool
	// RequeueAfter asks for another pass after this delay; it wins over
	// Requeue and resets the backoff.
	RequeueAfter time.Duration
}

// Reconciler drives the object named by a Request toward its desired state.
//
// The rules, applied by Controller after every call:
//   - a non-nil error requeues the Request with the per-key rate limit
//     (the Result is ignored);
//   - Result.RequeueAfter > 0 requeues it after that delay and forgets its
//     backoff;
//   - Result.Requeue requeues it with the per-key rate limit;
//   - otherwise the backoff is forgotten and nothing is requeued.
//
// A Request may name an object that no longer exists (it was deleted after
// the key was queued); the Reconciler must treat that as a normal case. A
// Request is never reconciled twice at the same time. Reconcile must not
// mutate objects it reads from an informer's cache.
type Reconciler interface {
	Reconcile(ctx context.Context, req Request) (Result, error)
}

// ReconcilerFunc adapts a function to Reconciler.
type ReconcilerFunc func(ctx context.Context, req Request) (Result, error)

// Reconcile calls f.
func (f ReconcilerFunc) Reconcile(ctx context.Context, req Request) (Result, error) {
	return f(ctx, req)
}

var _ Reconciler = ReconcilerFunc(nil)
