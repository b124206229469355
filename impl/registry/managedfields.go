package registry

import (
	"context"

	"github.com/converge-dev/converge/impl/api"
)

// ManagedFieldsFunc gives the metadata.managedFields an update stores,
// from the live object it is judged against and the update's own object.
type ManagedFieldsFunc func(live, in api.Object) []api.ManagedFieldsEntry

type managedFieldsKey struct{}

// WithManagedFields has the updates made with ctx (Update and
// UpdateStatus) store the managedFields fn gives. fn runs on every read of
// the update's retry loop, so ownership is recorded against the object
// actually replaced, as kube-apiserver runs its field manager inside its
// guaranteed update. A status update otherwise keeps the stored metadata
// whole, managedFields included.
func WithManagedFields(ctx context.Context, fn ManagedFieldsFunc) context.Context {
	return context.WithValue(ctx, managedFieldsKey{}, fn)
}

func managedFieldsOf(ctx context.Context) ManagedFieldsFunc {
	fn, _ := ctx.Value(managedFieldsKey{}).(ManagedFieldsFunc)
	return fn
}
