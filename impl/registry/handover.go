package registry

import (
	"context"

	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/impl/store"
)

type handOverKey struct{}

// HandOver marks the writes made with ctx as handing their objects over:
// Create, Update and UpdateStatus may change the object passed in and keep
// it, where they would copy it, and every write, and List, answers with
// objects that may be shared with watchers and later reads, which the
// caller must only read. It suits a caller that builds each object for one
// write and only reads the answers: the in-process components, and the
// apiserver, which decoded the object for the request and encodes the
// answer. Each spares a copy of an object per write, or per listed item.
func HandOver(ctx context.Context) context.Context {
	return context.WithValue(ctx, handOverKey{}, true)
}

func handsOver(ctx context.Context) bool {
	h, _ := ctx.Value(handOverKey{}).(bool)
	return h
}

// ownCopy is obj, or a copy of it when ctx does not hand it over.
func ownCopy(ctx context.Context, obj api.Object) api.Object {
	if handsOver(ctx) {
		return obj
	}
	return api.DeepCopy(obj)
}

// finishWrite is the answer to a write of obj that made so, after
// startWrite gave p. When the recent values keep obj, they share it from
// then on. Otherwise obj only gets its resourceVersion; sharesStored says
// it shares parts with a stored object all the same (shallowCopy).
func (r *Registry) finishWrite(ctx context.Context, p *pendingWrite, so store.Object, obj api.Object, sharesStored bool) api.Object {
	if r.recent.wrote(p, so) {
		return answer(ctx, obj, true)
	}
	api.Meta(obj).ResourceVersion = formatRV(so.Rev)
	return answer(ctx, obj, sharesStored)
}

// answer is obj for the caller: a copy when obj is shared and the caller
// does not hand objects over.
func answer(ctx context.Context, obj api.Object, shared bool) api.Object {
	if shared && !handsOver(ctx) {
		return api.DeepCopy(obj)
	}
	return obj
}
