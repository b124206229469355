package registry

import (
	"context"
	"sync/atomic"

	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/impl/store"
)

// Watch event types, as Kubernetes names them on the wire.
const (
	EventAdded    = string(api.EventAdded)
	EventModified = string(api.EventModified)
	EventDeleted  = string(api.EventDeleted)
	EventError    = string(api.EventError)
)

// ObjectEvent is one change seen by Watch. Object is the decoded object, the
// reader's own from Watch, shared and not to be changed from WatchShared;
// its resourceVersion is Rev: the change's revision (the deletion's for
// DELETED; the object's own for the initial ADDED events of a watch from
// ""). An ERROR event carries Err (a *api.StatusError; 410 Expired when the
// history was compacted) and no Object, and is the last on its channel.
type ObjectEvent struct {
	Type   string
	Object api.Object
	Rev    int64
	Err    error
}

// Watch streams the changes to resource in namespace ("" = all namespaces)
// after resourceVersion. The channel closes after an ERROR event or when
// ctx is cancelled; cancel ctx to stop watching.
func (r *Registry) Watch(ctx context.Context, resource, namespace, resourceVersion string) (<-chan ObjectEvent, error) {
	return r.watch(ctx, resource, namespace, resourceVersion, false)
}

// WatchShared is Watch for a reader that only reads its events' objects,
// as an informer's cache does: each is the object the registry keeps for
// the next read of that revision, not a copy, so nobody may change it.
// It spares a copy of every object written.
func (r *Registry) WatchShared(ctx context.Context, resource, namespace, resourceVersion string) (<-chan ObjectEvent, error) {
	return r.watch(ctx, resource, namespace, resourceVersion, true)
}

func (r *Registry) watch(ctx context.Context, resource, namespace, resourceVersion string, shared bool) (<-chan ObjectEvent, error) {
	info, err := collectionScope(resource, namespace)
	if err != nil {
		return nil, err
	}
	var from int64
	var initial []api.Object
	if resourceVersion == "" || resourceVersion == "0" {
		list, err := r.List(ctx, resource, namespace, ListOptions{})
		if err != nil {
			return nil, err
		}
		initial = api.Items(list)
		from, _ = parseRV(api.ListMetaOf(list).ResourceVersion)
	} else if from, err = parseRV(resourceVersion); err != nil {
		return nil, err
	}
	wctx, cancel := context.WithCancel(ctx)
	src := r.store.Watch(wctx, storageResource(info), namespace, from)
	out := make(chan ObjectEvent)
	open := r.watches(storageResource(info))
	open.Add(1)
	go func() {
		defer close(out)
		defer cancel()
		defer open.Add(-1)
		send := func(ev ObjectEvent) bool {
			select {
			case out <- ev:
				return true
			case <-ctx.Done():
				return false
			}
		}
		for _, obj := range initial {
			rev, _ := parseRV(api.Meta(obj).ResourceVersion)
			if !send(ObjectEvent{Type: EventAdded, Object: obj, Rev: rev}) {
				return
			}
		}
		for sev := range src {
			ev := r.translate(ctx, info, sev, shared)
			if !send(ev) || ev.Type == EventError {
				return
			}
		}
	}()
	return out, nil
}

// watches counts the watches open on resource.
func (r *Registry) watches(resource string) *atomic.Int64 {
	n, ok := r.watching.Load(resource)
	if !ok {
		n, _ = r.watching.LoadOrStore(resource, new(atomic.Int64))
	}
	return n.(*atomic.Int64)
}

// startWrite keeps what a write's value will decode to, before the write
// (recentValues.startWrite), when a watch is open on its resource: the
// watch's event will want it. With none, the copy would as often as not
// be made for nothing, as for an HTTP client's create.
func (r *Registry) startWrite(k store.Key, value []byte, obj api.Object) *pendingWrite {
	if r.watches(k.Resource).Load() > 0 || store.IsCustom(k.Resource) && r.watches(store.AllCustom).Load() > 0 {
		return r.recent.startWrite(k, value, obj)
	}
	return nil
}

// translate decodes one store event.
func (r *Registry) translate(ctx context.Context, info api.ResourceInfo, sev store.StoreEvent, shared bool) ObjectEvent {
	if sev.Err != nil {
		return ObjectEvent{Type: EventError, Err: storeError(ctx, sev.Err, info.GroupResource(), "")}
	}
	o := sev.Object
	resource := api.ResourceNamed(o.Key.Resource) // info's, but for store.AllCustom
	var obj api.Object
	var err error
	if len(o.Value) == 0 && sev.Type == store.Deleted {
		// etcd had no previous value to give: name the object at least.
		obj, err = newObject(resource)
		if err == nil {
			m := api.Meta(obj)
			m.Name, m.Namespace, m.ResourceVersion = o.Key.Name, o.Key.Namespace, formatRV(o.Rev)
		}
	} else if sev.Type == store.Deleted {
		// A DELETED event's value is the one before its revision: not
		// the key's value at that revision, so it is not kept.
		obj, err = decode(resource, o.Value, o.Rev)
	} else if shared {
		obj, err = r.recent.view(resource, o)
	} else {
		obj, err = r.recent.decode(resource, o, true)
	}
	if err != nil {
		return ObjectEvent{Type: EventError, Err: storeError(ctx, err, info.GroupResource(), o.Key.Name)}
	}
	return ObjectEvent{Type: string(sev.Type), Object: obj, Rev: o.Rev}
}
