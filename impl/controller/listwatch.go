package controller

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/converge-dev/converge/impl/api"
)

// Sentinel errors. Each is wrapped with %w and context.
var (
	// ErrWatchBroken: the stepped watch ended (error, 410 Gone, or closed);
	// the harness should call Relist.
	ErrWatchBroken = errors.New("controller: watch broken")
	// ErrNoWatch: the informer has no watch to deliver from (never started,
	// dropped, or reset).
	ErrNoWatch = errors.New("controller: no watch")
	// ErrNotStarted: a stepped call came before Start.
	ErrNotStarted = errors.New("controller: informer not started")
	// ErrAlreadyRunning: Run or Start was called on an informer that is
	// already driven the other way, or Run was called twice.
	ErrAlreadyRunning = errors.New("controller: already running")
	// ErrBadRevision: a list or an object carried a resourceVersion that is
	// not a decimal revision.
	ErrBadRevision = errors.New("controller: bad revision")
	// ErrUnknownIndex: ByIndex named an index no AddIndexer registered.
	ErrUnknownIndex = errors.New("controller: unknown index")
	// ErrDuplicateIndex: AddIndexer was called twice with one name.
	ErrDuplicateIndex = errors.New("controller: duplicate index")
	// ErrBadKey: a queue key is not "name" or "namespace/name".
	ErrBadKey = errors.New("controller: bad key")
	// ErrNotQueued: ProcessKey named a key that is not in the queue.
	ErrNotQueued = errors.New("controller: key not queued")
	// ErrReconcilerPanic: the Reconciler panicked; the key is retried.
	ErrReconcilerPanic = errors.New("controller: reconciler panicked")
)

// Watch event types, as Kubernetes spells them.
const (
	Added    = "ADDED"
	Modified = "MODIFIED"
	Deleted  = "DELETED"
	Error    = "ERROR"
)

// ListOptions mirrors the list query parameters the informer can send. The
// informer itself sends none of them (it lists everything in scope).
type ListOptions struct {
	LabelSelector, FieldSelector string
	Limit                        int64
	Continue, ResourceVersion    string
}

// ListWatchEvent is one watch event. Rev is the store revision of the change (for
// DELETED, the deletion revision) and Object the new state (for DELETED, the
// last state). An ERROR event, or any event with Err set, ends its watch.
type ListWatchEvent struct {
	Type   string
	Object api.Object
	Rev    int64
	Err    error
}

// ListWatcher is the part of a client an informer needs. Watch streams the
// changes after resourceVersion (exclusive) and closes its channel when ctx
// ends or after an ERROR event; a compacted resourceVersion yields an error
// for which api.IsResourceExpired holds, either returned or as an ERROR event.
type ListWatcher interface {
	List(ctx context.Context, resource, namespace string, opts ListOptions) (api.ListObject, error)
	Watch(ctx context.Context, resource, namespace, resourceVersion string) (<-chan ListWatchEvent, error)
}

// parseRev reads a resourceVersion; "" is revision 0.
func parseRev(rv string) (int64, error) {
	if rv == "" {
		return 0, nil
	}
	n, err := strconv.ParseInt(rv, 10, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%w: %q", ErrBadRevision, rv)
	}
	return n, nil
}

// eventRev is the event's revision, falling back to the object's
// resourceVersion when the source left Rev unset.
func eventRev(ev ListWatchEvent) int64 {
	if ev.Rev != 0 || ev.Object == nil {
		return ev.Rev
	}
	n, err := parseRev(api.Meta(ev.Object).ResourceVersion)
	if err != nil {
		return 0
	}
	return n
}

// isEnd reports whether ev ends its watch.
func isEnd(ev ListWatchEvent) bool { return ev.Type == Error || ev.Err != nil }

// endErr is the error an ending event carries.
func endErr(ev ListWatchEvent) error {
	if ev.Err != nil {
		return ev.Err
	}
	return fmt.Errorf("%w: ERROR event without cause", ErrWatchBroken)
}
