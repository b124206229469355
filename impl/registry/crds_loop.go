package registry

import (
	"context"
	"sort"
	"time"

	"github.com/converge-dev/converge/impl/api"
)

// crdRetry is how often a deleted CRD whose custom resources are still
// going is looked at again, and how long a failed watch waits.
const crdRetry = 200 * time.Millisecond

// RunCRDs is the driver of SyncCRD, as upstream's apiextensions
// controllers run in kube-apiserver: it serves every stored CRD, then
// follows their changes until ctx ends. Run it once per control plane,
// beside the apiserver that serves the custom resources. (The control
// plane's garbage collector and namespace controller follow custom
// resources as any object.)
func (r *Registry) RunCRDs(ctx context.Context) {
	defer r.unserveAll() // a control plane that ends serves nothing more
	for ctx.Err() == nil {
		rv, err := r.syncAllCRDs(ctx)
		if err == nil {
			err = r.followCRDs(ctx, rv)
		}
		if ctx.Err() != nil {
			return
		}
		select {
		case <-ctx.Done():
		case <-time.After(crdRetry):
		}
	}
}

func (r *Registry) syncAllCRDs(ctx context.Context) (string, error) {
	l, err := r.List(ctx, crdResource, "", ListOptions{})
	if err != nil {
		return "", err
	}
	names := make([]string, 0, len(api.Items(l)))
	for _, o := range api.Items(l) {
		names = append(names, api.Meta(o).Name)
	}
	sort.Strings(names)
	for _, n := range names {
		if _, err := r.SyncCRD(ctx, n); err != nil {
			return "", err
		}
	}
	return api.ListMetaOf(l).ResourceVersion, nil
}

// followCRDs syncs each CRD that changes after rv, and retries those
// still waiting for their custom resources to go.
func (r *Registry) followCRDs(ctx context.Context, rv string) error {
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	events, err := r.Watch(wctx, crdResource, "", rv)
	if err != nil {
		return err
	}
	pending := map[string]bool{}
	tick := time.NewTicker(crdRetry)
	defer tick.Stop()
	sync := func(name string) error {
		p, err := r.SyncCRD(ctx, name)
		if err != nil {
			return err
		}
		if p {
			pending[name] = true
		} else {
			delete(pending, name)
		}
		return nil
	}
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case ev, ok := <-events:
			if !ok {
				return nil
			}
			if ev.Err != nil {
				return ev.Err
			}
			if ev.Object == nil || ev.Type == string(api.EventBookmark) {
				continue
			}
			if err := sync(api.Meta(ev.Object).Name); err != nil {
				return err
			}
		case <-tick.C:
			for name := range pending {
				if err := sync(name); err != nil {
					return err
				}
			}
		}
	}
}
