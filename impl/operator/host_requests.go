package operator

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// passOf is the reconcile a request belongs to: the one its context
// names, or else (a client called without the reconcile's context) the
// one running; nil outside reconciles.
func (h *Host) passOf(req *http.Request) *pass {
	if p, ok := req.Context().Value(passKey{}).(*pass); ok {
		return p
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.running
}

// before sees each request before the apiserver does. It parks an
// interleaved reconcile before each of its writes: what a reconcile read
// before a write is what another's write can make stale. It fails the
// requests past the operator's crash point, and the reconcile's failing
// request. Requests outside reconciles (startup's discovery) are spared:
// controller-runtime retries a failed one only after 10 s of wall clock.
func (h *Host) before(req *http.Request) (*http.Response, error) {
	p := h.passOf(req)
	if p != nil && p.interleaved && isWrite(req) && !h.dead(p) {
		if q := h.queue(p.Controller); q == nil || !q.park(p.Request) {
			h.mu.Lock()
			p.faulted = true
			h.mu.Unlock()
			return nil, ErrCrashed // the operator stopped while it waited
		}
	}
	if p != nil && isWrite(req) {
		h.noteClaim(p, req)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	life := h.run
	if p != nil {
		life = p.life
	}
	if life.crashed {
		if p != nil {
			p.faulted = true
		}
		return nil, ErrCrashed
	}
	if p == nil {
		return nil, nil
	}
	p.requests++
	if p.requests == p.failAt {
		p.faulted, p.failed = true, true
		return statusResponse(req, apierrors.NewInternalError(errors.New("converge: an injected transient apiserver error"))), nil
	}
	if !isWrite(req) {
		return nil, nil
	}
	if p.budget == 0 {
		life.crashed, p.faulted = true, true
		return nil, ErrCrashed
	}
	if p.budget > 0 {
		p.budget--
	}
	return nil, nil
}

// dead reports whether p's operator crashed: its requests fail at once.
func (h *Host) dead(p *pass) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return p.life.crashed
}

// after counts the operator's writes that landed, tells the cluster, and
// looks for churn.
func (h *Host) after(req *http.Request, resp *http.Response, body []byte, lastWrite int64) {
	p := h.passOf(req)
	if p != nil && req.Method != http.MethodGet && resp != nil && resp.StatusCode == http.StatusConflict {
		h.mu.Lock()
		if !ownStatus(p, req) {
			p.checks.conflicted = true
		}
		h.mu.Unlock()
	}
	if p != nil && isWrite(req) && resp != nil && resp.StatusCode == http.StatusUnprocessableEntity {
		h.refusedWrite(p, body)
	}
	if !h.noter.note(req, resp, lastWrite) {
		if req.Method == http.MethodGet {
			h.answerRead(p, req, resp, answer(body))
		}
		return
	}
	w := answer(body)
	defer h.answerRead(p, req, resp, w) // after the oracles judged the write
	h.mu.Lock()
	defer h.mu.Unlock()
	h.writes++
	if gvk, ok := w.gvk(); ok {
		if h.wrote == nil {
			h.wrote = map[schema.GroupVersionKind]bool{}
		}
		h.wrote[gvk] = true
	}
	upToDate := func(schema.GroupVersionKind) bool { return true }
	var item Item
	if p != nil {
		p.written = append(p.written, writtenBy(req, w))
		upToDate, item = p.upToDate, p.Item
	}
	if err := h.churn.observe(req, w, upToDate); err != nil {
		h.failures = append(h.failures, Failure{Item: item, Oracle: "churn", Err: err})
	}
	if p != nil {
		h.checkWrite(p, req, w)
	}
}

// checkWrite runs the oracles of one landed write of a reconcile: no
// delete of the current incarnation's children from a view of a previous
// one, no cleanup after the finalizer is gone, no observedGeneration of a
// spec the reconcile did not act on.
func (h *Host) checkWrite(p *pass, req *http.Request, w written) {
	if err := h.staleIncarnation(p, req, w); err != nil {
		h.failures = append(h.failures, Failure{Item: p.Item, Oracle: "incarnation", Err: err})
	}
	h.noteDeleted(p, req, w)
	if err := p.cleanupOrder(req, w); err != nil {
		h.failures = append(h.failures, Failure{Item: p.Item, Oracle: "cleanup order", Err: err})
	}
	if err := h.observedGeneration(p, req, w); err != nil {
		h.failures = append(h.failures, Failure{Item: p.Item, Oracle: OracleObservedGeneration, Err: err})
	}
}

// staleKinds is the kinds whose informers have undelivered events.
func (h *Host) staleKinds() map[schema.GroupKind]bool {
	out := map[schema.GroupKind]bool{}
	for _, i := range h.run.cache.all() {
		if i.inner.Pending() > 0 {
			out[i.gvk.GroupKind()] = true
		}
	}
	return out
}

// refusedWrite notes a write of the reconcile that the apiserver refused
// (422) for values the user wrote (Config.UserInput), whether or not the
// reconcile returns the error: an operator that reports the refusal in
// its status and carries on keeps its children as the last accepted input
// made them, as in a cluster (Outcome.Refused).
func (h *Host) refusedWrite(p *pass, body []byte) {
	var st metav1.Status
	if json.Unmarshal(body, &st) != nil || st.Kind != "Status" {
		return
	}
	err := &apierrors.StatusError{ErrStatus: st}
	if !h.userInput(err) {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if p.refused == "" {
		p.refused = err.Error()
	}
}

// ownStatus says whether req writes the status of the object p
// reconciles (a /status path of its primary kind's group and resource, with the
// request's namespace and name; never when the primary is unknown, nor
// for a child of the same name). Called with h.mu held. Its
// conflict does not unsettle the reconcile: the children it wrote went
// through as its view asked, and only its report lost to a newer version
// of the object, which the reconcile that version queues writes again. A
// reconcile that makes a paused resource's children, then loses its
// status write to the user's pause, made what the reference run must make
// too (the differential's history, properties/oracle_history.go).
func ownStatus(p *pass, req *http.Request) bool {
	segs := strings.Split(strings.Trim(req.URL.Path, "/"), "/")
	n := len(segs)
	if n < 3 || segs[n-1] != "status" || segs[n-2] != p.Request.Name || p.checks.gen.resource == "" || segs[n-3] != p.checks.gen.resource {
		return false
	}
	group := "" // /api/v1/...: the core group
	if segs[0] == "apis" && n > 1 {
		group = segs[1]
	}
	if group != p.checks.gen.kind.Group {
		return false // a same-named resource of another group
	}
	ns := ""
	for i := 0; i+1 < n; i++ {
		if segs[i] == "namespaces" {
			ns = segs[i+1]
			break
		}
	}
	return ns == p.Request.Namespace
}
