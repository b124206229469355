package cluster

import (
	"fmt"
	"strconv"

	"github.com/converge-dev/converge/impl/project"
	"github.com/converge-dev/converge/impl/registry"
	"github.com/converge-dev/converge/model"
)

// removalRev is the revision of the deletion by which an update that took
// an object's last finalizer removed it. Upstream's apiserver answers such
// an update with the update's object at the revision it was judged against
// (Store.Update's deleteWithoutFinalizers), so the answer does not carry
// the deletion's revision, which the model's write has and for which the
// stepped driver waits on the informers. The writer reads the revision the
// store is at, as a list's resourceVersion: the stepped driver writes
// nothing in between, so it is the deletion's (in the running driver it
// may be a later one, which only the stepped driver's bookkeeping reads).
func (w *writer) removalRev(ref model.Ref) (int64, error) {
	opts := registry.ListOptions{FieldSelector: "metadata.name=" + ref.Name, Limit: 1}
	l, err := w.c.env.client.List(w.ctx, project.ResourceOf(ref), ref.Namespace, opts)
	if err != nil {
		return 0, fmt.Errorf("cluster: read the revision of %s's removal: %w", ref, err)
	}
	rev, err := strconv.ParseInt(l.GetListMeta().ResourceVersion, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("cluster: read the revision of %s's removal: %w", ref, err)
	}
	return rev, nil
}
