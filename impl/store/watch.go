package store

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// EventType says what a watch event did to its object.
type EventType string

const (
	Added    EventType = "ADDED"
	Modified EventType = "MODIFIED"
	Deleted  EventType = "DELETED"
)

// StoreEvent is one change seen by Watch. For Deleted, Object holds the last value
// and Rev is the deletion revision. A StoreEvent with Err set is the last one on
// its channel: Err wraps ErrGone when history was compacted, and the reader
// should relist either way.
type StoreEvent struct {
	Type   EventType
	Object Object
	Err    error
}

// watchBuffer decouples etcd's delivery from a reader's pace; when it is full
// the stream waits for the reader rather than dropping anything.
const watchBuffer = 64

// Watch streams the changes to resource in namespace ("" = all namespaces)
// whose revision is greater than fromRev, in revision order. The channel
// closes after an Err event or once ctx is cancelled; the caller must cancel
// ctx when done to release the underlying etcd watch.
func (s *Store) Watch(ctx context.Context, resource, namespace string, fromRev int64) <-chan StoreEvent {
	out := make(chan StoreEvent, watchBuffer)
	if err := validateScope(resource, namespace); err != nil {
		out <- StoreEvent{Err: err}
		close(out)
		return out
	}
	if fromRev < 0 {
		out <- StoreEvent{Err: fmt.Errorf("%w: watch %s from negative revision %d", ErrInvalid, resource, fromRev)}
		close(out)
		return out
	}
	if s.compactedPast(fromRev + 1) {
		out <- StoreEvent{Err: watchError(resource, fromRev, s.compacted.Load(), rpctypes.ErrCompacted)}
		close(out)
		return out
	}
	wctx, cancel := context.WithCancel(ctx)
	// No WithPrevKV: etcd would then read every event's previous value,
	// one range per event, when only deletions need it (see eventFrom).
	wch := s.c.Watch(wctx, s.scopePrefix(resource, namespace),
		clientv3.WithPrefix(), clientv3.WithRev(fromRev+1))
	go func() {
		defer close(out)
		defer cancel()
		s.forward(ctx, resource, fromRev, wch, out)
	}()
	return out
}

// forward copies etcd's watch responses to out until ctx ends or the watch
// fails.
func (s *Store) forward(ctx context.Context, resource string, fromRev int64, wch clientv3.WatchChan, out chan<- StoreEvent) {
	keep := s.unionFilter(resource)
	send := func(ev StoreEvent) bool {
		select {
		case out <- ev:
			return true
		case <-ctx.Done():
			return false
		}
	}
	for {
		select {
		case <-ctx.Done():
			return
		case resp, ok := <-wch:
			if !ok {
				if ctx.Err() == nil {
					send(StoreEvent{Err: fmt.Errorf("store: watch %s ended: etcd client closed", resource)})
				}
				return
			}
			if err := resp.Err(); err != nil {
				send(StoreEvent{Err: watchError(resource, fromRev, resp.CompactRevision, err)})
				return
			}
			evs := resp.Events
			if keep != nil {
				evs = slices.DeleteFunc(slices.Clone(evs), func(ev *clientv3.Event) bool { return !keep(ev.Kv.Key) })
			}
			if n := len(evs); n > 0 {
				s.awaitApplied(ctx, evs[n-1].Kv.ModRevision)
			}
			for _, ev := range evs {
				if !send(s.eventFrom(ctx, resource, ev)) {
					return
				}
			}
		}
	}
}

func watchError(resource string, fromRev, compactRev int64, err error) error {
	if errors.Is(err, rpctypes.ErrCompacted) {
		return fmt.Errorf("%w: watch %s after revision %d: history compacted up to %d", ErrGone, resource, fromRev, compactRev)
	}
	return fmt.Errorf("store: watch %s after revision %d: %w", resource, fromRev, err)
}

// eventFrom translates one etcd event. A deletion carries the value it
// deleted, read at the revision before it, as etcd's WithPrevKV would:
// like etcd, it goes without when that revision is compacted by now.
func (s *Store) eventFrom(ctx context.Context, resource string, ev *clientv3.Event) StoreEvent {
	k := s.parseKey(resource, ev.Kv.Key)
	if ev.Type == clientv3.EventTypeDelete {
		obj := Object{Key: k, Rev: ev.Kv.ModRevision}
		prev := ev.PrevKv
		if prev == nil {
			if resp, err := s.c.Get(ctx, string(ev.Kv.Key), clientv3.WithRev(ev.Kv.ModRevision-1)); err == nil && len(resp.Kvs) == 1 {
				prev = resp.Kvs[0]
			}
		}
		if prev != nil {
			obj.Value, obj.CreateRev = prev.Value, prev.CreateRevision
		}
		return StoreEvent{Type: Deleted, Object: obj}
	}
	t := Modified
	if ev.IsCreate() {
		t = Added
	}
	return StoreEvent{Type: t, Object: objectFromKV(k, ev.Kv)}
}
