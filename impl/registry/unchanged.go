package registry

import (
	"bytes"
	"context"

	"github.com/converge-dev/converge/impl/api"
)

type skipUnchangedKey struct{}

// SkipUnchanged marks the updates made with ctx as kube-apiserver makes
// them: an update (or a patch, or a status write) whose object would be
// stored as it is stored writes nothing, keeps the resourceVersion, and
// answers the stored object, so no watcher hears of it. The apiserver asks
// it for its clients; converge's in-process components do not, because
// the model they agree with writes every update.
func SkipUnchanged(ctx context.Context) context.Context {
	return context.WithValue(ctx, skipUnchangedKey{}, true)
}

// unchanged says whether ctx asks to skip unchanged writes and value, the
// next object encoded, is what old holds.
func unchanged(ctx context.Context, old api.Object, value []byte) bool {
	if skip, _ := ctx.Value(skipUnchangedKey{}).(bool); !skip {
		return false
	}
	stored, err := encode(api.DeepCopy(old)) // old may be shared: encode sets its fields
	return err == nil && bytes.Equal(stored, value)
}
