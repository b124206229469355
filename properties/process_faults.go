package properties

import (
	"errors"
	"fmt"
	"time"

	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/impl/apiserver"
)

// apiFault fails the operator's next request of a kind (writes or
// reads) with a transient error, as a loaded or restarting apiserver
// answers: 500, 429 with a Retry-After, or 504. Clients retry all three
// (client-go retries 429 and 5xx with Retry-After itself; a reconciler's
// error requeues it with backoff), so a correct operator converges all
// the same.
type apiFault struct {
	writes bool // a write, else a read (get or list)
	code   int
}

// faultCodes are the codes an apiFault answers with.
var faultCodes = []int{500, 429, 504}

func (f apiFault) String() string {
	what := "read"
	if f.writes {
		what = "write"
	}
	return fmt.Sprintf("the operator's next %s fails with %d", what, f.code)
}

// faultLocked answers req with the armed fault, if it matches, and
// disarms it.
func (t *requestTracker) faultLocked(req apiserver.Request) error {
	if req.Verb == "watch" && t.expire > 0 {
		t.expire--
		return api.NewResourceExpired("converge: an injected fault: too old resource version")
	}
	f := t.fault
	if f == nil || req.Resource == "" || req.Resource == "events" {
		return nil
	}
	if req.IsWrite() != f.writes || (!f.writes && req.Verb != "get" && req.Verb != "list") {
		return nil
	}
	t.fault = nil
	// A client told to come back later sleeps, with nothing in flight:
	// the operator is not idle until it has had the time to.
	retry := time.Now().Add(time.Second)
	switch f.code {
	case 429:
		t.waitsUntil = retry
		return api.NewTooManyRequests("converge: an injected fault: too many requests", 1)
	case 504:
		t.waitsUntil = retry
		return api.NewTimeout("converge: an injected fault", 1)
	}
	return api.NewInternalError(errors.New("converge: an injected fault"))
}

// armFault sets the fault for the operator's next matching request.
func (t *requestTracker) armFault(f apiFault) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.fault = &f
}

// disarmFault drops a fault that no request has met.
func (t *requestTracker) disarmFault() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.fault, t.expire = nil, 0
}

// dropWatches closes every watch of the operator, and answers as many of
// its next watches with 410 Gone, as an apiserver that restarted and
// compacted would: each informer then lists again (a relist) and watches
// from there. An informer that missed nothing must end as it would have.
func (t *requestTracker) dropWatches() int {
	t.mu.Lock()
	closes := make([]func(), 0, len(t.watches))
	for _, c := range t.watches {
		closes = append(closes, c)
	}
	t.expire = len(closes)
	t.mu.Unlock()
	for _, c := range closes {
		c()
	}
	return len(closes)
}
