package registry

import (
	"context"
	"errors"
	"fmt"

	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/impl/store"
)

// errRetry is internal: a last-write-wins write lost a race with another
// writer and should be tried again from a fresh read.
var errRetry = errors.New("registry: retry")

// storeError turns a store error into the Status the apiserver answers
// with. A done ctx wins over whatever the store said, so callers can tell
// their own cancellation (errors.Is) from a server failure.
func storeError(ctx context.Context, err error, gr api.GroupResource, name string) error {
	var se *api.StatusError
	switch {
	case ctx.Err() != nil:
		return ctxError(ctx)
	case errors.As(err, &se):
		return se // a render error carrying a Status
	case errors.Is(err, store.ErrNotFound):
		return api.NewNotFound(gr, name)
	case errors.Is(err, store.ErrAlreadyExists):
		return api.NewAlreadyExists(gr, name)
	case errors.Is(err, store.ErrConflict):
		return api.NewOptimisticLockConflict(gr, name)
	case errors.Is(err, store.ErrGone):
		return api.NewResourceExpired(fmt.Sprintf("too old resource version: %v", err))
	case errors.Is(err, store.ErrInvalid):
		return api.NewBadRequest(err.Error())
	default:
		return api.NewInternalError(err)
	}
}

// ctxError is a 504 Timeout that also matches the context's error.
func ctxError(ctx context.Context) error {
	return fmt.Errorf("%w: %w", api.NewTimeout("request did not complete", 0), ctx.Err())
}

// preconditionFailed is Kubernetes' 409 for a delete precondition.
func preconditionFailed(gr api.GroupResource, name, field, want, got string) error {
	return api.NewConflict(gr, name, fmt.Errorf("Precondition failed: %s in precondition: %s, %s in object meta: %s", field, want, field, got))
}
