package properties

import (
	"sync"
	"time"

	"github.com/converge-dev/converge/impl/apiserver"
)

// heldWrite is a write of the operator that the apiserver makes wait: it
// is held before it is served, while the check takes its next step (a
// user's write, another fault), and served after. That is a slow
// apiserver, or a request stuck behind others on a busy connection: the
// write lands on a world that has moved on since the operator read it.
// Kubernetes' optimistic concurrency is the convention it tests: a write
// built on a stale read must carry the resourceVersion it read (and fail
// with a 409), or be a patch of the fields the operator owns alone.
// While held, the write is not in flight: the operator waits on the
// apiserver, not on itself, so the check may go on.
type heldWrite struct {
	armed   bool // no write has been held yet
	release chan struct{}
	once    sync.Once
	what    string // the write held, once one is
}

// holdBound is the longest a write is held if the check never lets it go
// (it ended): the client's request would time out about then.
const holdBound = 30 * time.Second

func (h *heldWrite) wait() {
	select {
	case <-h.release:
	case <-time.After(holdBound):
	}
}

func (h *heldWrite) let() { h.once.Do(func() { close(h.release) }) }

// armHold makes the operator's next write wait until releaseHold.
func (t *requestTracker) armHold() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.hold != nil {
		t.hold.let()
	}
	t.hold = &heldWrite{armed: true, release: make(chan struct{})}
}

// holdLocked returns the hold req must wait on, if it is the operator's
// first write since armHold.
func (t *requestTracker) holdLocked(req apiserver.Request, u apiserver.User) *heldWrite {
	h := t.hold
	if h == nil || !h.armed || u.Name != t.operator || !req.IsWrite() || req.Resource == "" || req.Resource == "events" {
		return nil
	}
	h.armed = false
	h.what = req.Verb + " " + req.Resource + " " + writeTarget(req)
	return h
}

// releaseHold serves the held write, if any, and disarms the hold; it
// says which write it let go ("" if none was held).
func (t *requestTracker) releaseHold() string {
	t.mu.Lock()
	h := t.hold
	t.hold = nil
	t.mu.Unlock()
	if h == nil {
		return ""
	}
	h.let()
	return h.what
}
