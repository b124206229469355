package properties

import (
	"fmt"
	"sync"
	"time"

	"github.com/converge-dev/converge/impl/apiserver"
)

// requestTracker is the apiserver's Tracker in a check of an operator
// run as its own process. It follows the operator's identity (the user
// its kubeconfig names): the requests it has in flight, when any client
// was last heard, the writes that landed, and a crash point that kills
// the process right after its k-th write from the arming. The harness's
// own requests count as activity too: the operator hears of them by its
// watches.
type requestTracker struct {
	operator string
	base     time.Duration // the least quiet period

	mu       sync.Mutex
	inFlight int       // the operator's requests being served, watches aside
	last     time.Time // the last start or end of a request, any client's
	lastOp   time.Time // the same, of the operator's alone (forgotten at a restart)
	heardOp  time.Time // the same, never forgotten
	maxGap   time.Duration
	writes   int      // the operator's writes that landed, Events aside
	recent   []string // the operator's last writes, for a report
	// killAfter > 0 arms the crash point: kill runs once that many more
	// writes of the operator have landed.
	killAfter int
	kill      func()
	// fault, if set, answers one of the operator's requests instead of
	// the apiserver (process_faults.go); waitsUntil is when the client
	// it told to retry after a while (Retry-After) will have.
	fault      *apiFault
	waitsUntil time.Time
	// watches are the operator's open watches, by number; expire is how
	// many of its next watches are answered 410 Gone (a relist).
	watches   map[int]func()
	nextWatch int
	expire    int
	// hold, if set, makes the operator's next write wait until release:
	// the step after the one that armed it (process_hold.go).
	hold *heldWrite
}

var _ apiserver.Tracker = (*requestTracker)(nil)

func newRequestTracker(operator string, base time.Duration) *requestTracker {
	return &requestTracker{operator: operator, base: base, watches: map[int]func(){}}
}

// Begin hears a request start: activity, and for the operator a request
// in flight (a watch stays open: only its start counts).
func (t *requestTracker) Begin(u apiserver.User, req apiserver.Request) (func(int), error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if h := t.holdLocked(req, u); h != nil {
		t.mu.Unlock()
		h.wait()
		t.mu.Lock()
	}
	now := time.Now()
	t.last = now
	if u.Name != t.operator {
		return func(int) { t.heard() }, nil
	}
	if gap := now.Sub(t.lastOp); !t.lastOp.IsZero() && gap < t.quietLocked() {
		t.maxGap = max(t.maxGap, gap) // within a burst: the operator's own pace
	}
	t.lastOp, t.heardOp = now, now
	if err := t.faultLocked(req); err != nil {
		return nil, err
	}
	if req.Verb == "watch" {
		t.nextWatch++
		id := t.nextWatch
		t.watches[id] = req.Close
		return func(int) {
			t.mu.Lock()
			delete(t.watches, id)
			t.mu.Unlock()
			t.heard()
		}, nil
	}
	t.inFlight++
	return func(code int) { t.ended(req, code) }, nil
}

func (t *requestTracker) heard() {
	t.mu.Lock()
	t.last = time.Now()
	t.mu.Unlock()
}

func (t *requestTracker) ended(req apiserver.Request, code int) {
	t.mu.Lock()
	now := time.Now()
	t.last, t.lastOp, t.heardOp = now, now, now
	t.inFlight--
	var kill func()
	if req.IsWrite() && code < 300 && req.Resource != "events" {
		t.writes++
		t.recent = append(t.recent, fmt.Sprintf("%s %s %s", req.Verb, req.Resource, writeTarget(req)))
		if len(t.recent) > 5 {
			t.recent = t.recent[1:]
		}
		if t.killAfter > 0 {
			if t.killAfter--; t.killAfter == 0 {
				kill = t.kill
			}
		}
	}
	t.mu.Unlock()
	if kill != nil {
		kill() // before the operator, which has its answer, writes again
	}
}

// writeTarget names what a write wrote: namespace/name, with the
// subresource.
func writeTarget(req apiserver.Request) string {
	s := req.Name
	if req.Namespace != "" {
		s = req.Namespace + "/" + s
	}
	if req.Subresource != "" {
		s += " (" + req.Subresource + ")"
	}
	return s
}

// quietLocked is the quiet period that says the operator is idle: at
// least base, and twice the longest gap seen between two of its requests
// in one burst, so that an operator that thinks between its requests
// (a slow language, a rate limiter) is not taken for idle in the middle
// of a reconcile; at most ten times base.
func (t *requestTracker) quietLocked() time.Duration {
	return min(max(t.base, 2*t.maxGap), 10*t.base)
}

// idleFor says how long nobody has been heard, against the quiet
// period, and whether the operator has no request in flight and none it
// was told to retry later.
func (t *requestTracker) idleFor(now time.Time) (quietFor, quiet time.Duration, idle bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return now.Sub(t.last), t.quietLocked(), t.inFlight == 0 && !now.Before(t.waitsUntil)
}

// operatorWrites is the count of the operator's writes so far, and the
// last few.
func (t *requestTracker) operatorWrites() (int, []string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.writes, append([]string(nil), t.recent...)
}

// armKill makes kill run right after the operator's k-th write from now;
// k = 0 disarms it.
func (t *requestTracker) armKill(k int, kill func()) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.killAfter, t.kill = k, kill
}

// restarted forgets when the operator was last heard, for its pace: a
// new process's first request is no gap within a burst.
func (t *requestTracker) restarted() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.lastOp = time.Time{}
}

// heardOperator says whether the operator has made a request yet.
func (t *requestTracker) heardOperator() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return !t.lastOp.IsZero()
}

// operatorHeard is when the operator last made or ended a request.
func (t *requestTracker) operatorHeard() time.Time {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.heardOp
}
