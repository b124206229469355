package cluster

import (
	"fmt"

	"github.com/converge-dev/converge/impl/api"
)

// Transient API errors (model.OpAPIError): the fault arms a component, and
// its next API call fails with a 429, 503 or 504 Status before it reaches
// the store. The model's decision code meets it at its next store write
// of a reconcile, as in the model (the reconcile stops, the key is
// retried); a user's controller meets it at its next read or write through
// its client, and its return value decides what follows. Nothing is
// recorded: nothing was written.

// arm sets the code the component's next API call fails with.
func (c *component) arm(code int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.fault = code
}

// armed is the code armed, 0 if none.
func (c *component) armed() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.fault
}

// transient disarms the fault and returns its error, nil if none is armed.
// The caller holds c.mu (it runs inside a reconcile).
func (c *component) transient(resource, name string) error {
	code := c.fault
	if code == 0 {
		return nil
	}
	c.fault = 0
	return transientError(code, resource, name)
}

// transientError is the Status an apiserver answers under load.
func transientError(code int, resource, name string) error {
	what := resource
	if name != "" {
		what += "/" + name
	}
	switch code {
	case 429:
		return api.NewTooManyRequests(fmt.Sprintf("too many requests for %s, please try again later", what), 1)
	case 504:
		return api.NewTimeout(fmt.Sprintf("the request for %s timed out", what), 1)
	}
	return api.NewServiceUnavailable(fmt.Sprintf("the apiserver is unavailable for %s", what))
}

// transient fails a reconcile's write of the shared decision code if an
// api-error is armed; it stops the reconcile as any failed write does.
func (w *writer) transient() bool {
	if !w.reconciling || w.c.transient("", "") == nil {
		return false
	}
	w.failed = true
	return true
}
