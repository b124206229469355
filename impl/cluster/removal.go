package cluster

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/impl/controller"
	"github.com/converge-dev/converge/impl/project"
	"github.com/converge-dev/converge/impl/registry"
	"github.com/converge-dev/converge/model"
)

// removalRev is the revision of the deletion by which an update that took
// an object's last finalizer removed it. Upstream's apiserver answers such
// an update with the update's object at the revision it was judged against
// (Store.Update's deleteWithoutFinalizers), so the answer does not carry
// the deletion's revision, which the model's write has and for which the
// stepped driver waits on the informers. An in-process client's store
// tells the writer (store.Writes). Over HTTP, or when another writer's
// removal raced the update's, the writer reads it from a watch of the
// object's resource from the answer's revision: the first deletion of the
// object after it, which etcd serves only when it next syncs its lagging
// watchers, up to 100 ms later. (The revision the store is at would do
// only while nothing else writes to the etcd: other clusters on one etcd,
// a check's reference run beside it, move it on.) When that revision is
// compacted away, the store's revision is all there is.
func (w *writer) removalRev(ref model.Ref, answered int64) (int64, error) {
	if removed := w.stored.Take(); removed > answered {
		return removed, nil
	}
	ctx, cancel := context.WithTimeout(w.ctx, removalWait)
	defer cancel()
	events, err := w.c.env.lw.Watch(ctx, project.ResourceOf(ref), ref.Namespace, strconv.FormatInt(answered, 10))
	if api.IsResourceExpired(err) {
		return w.storeRev(ref)
	}
	if err != nil {
		return 0, fmt.Errorf("cluster: read the revision of %s's removal: %w", ref, err)
	}
	for ev := range events {
		if api.IsResourceExpired(ev.Err) {
			return w.storeRev(ref)
		}
		if ev.Err != nil {
			return 0, fmt.Errorf("cluster: read the revision of %s's removal: %w", ref, ev.Err)
		}
		if ev.Type == controller.Deleted && ev.Object != nil && api.Meta(ev.Object).Name == ref.Name {
			return ev.Rev, nil
		}
	}
	return 0, fmt.Errorf("cluster: read the revision of %s's removal: no deletion after revision %d (%w)", ref, answered, ctx.Err())
}

// removalWait bounds the wait for a removal's event, which has happened.
const removalWait = 10 * time.Second

// storeRev is the revision the store is at, as a list's resourceVersion.
func (w *writer) storeRev(ref model.Ref) (int64, error) {
	opts := registry.ListOptions{FieldSelector: "metadata.name=" + ref.Name, Limit: 1}
	l, err := w.c.env.client.List(w.ctx, project.ResourceOf(ref), ref.Namespace, opts)
	if err != nil {
		return 0, fmt.Errorf("cluster: read the revision of %s's removal: %w", ref, err)
	}
	rev, err := strconv.ParseInt(api.ListMetaOf(l).ResourceVersion, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("cluster: read the revision of %s's removal: %w", ref, err)
	}
	return rev, nil
}
