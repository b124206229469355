package operator

import (
	"fmt"
	"net/http"
	"slices"
	"strings"

	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// passChecks is what the write oracles keep of one reconcile.
type passChecks struct {
	// finalized names the finalizer the reconcile removed from the object
	// it reconciles, while that object was being deleted ("" before).
	finalized string
	// reported: the reconcile already failed the cleanup order.
	reported bool
	// settled: the reconcile returned success and asked for no immediate
	// requeue (a RequeueAfter is a later look, not unfinished work).
	settled bool
	// conflicted: one of its writes, other than its own status
	// (ownStatus), lost to a newer version (409): it
	// acted on a stale view, so whatever it returned, it did not settle
	// what its view asked.
	conflicted bool
	// gen is what the observed-generation oracle keeps of it.
	gen generationSeen
}

// settled notes how p's reconcile returned.
func (h *Host) settled(p *pass, res reconcile.Result, err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	p.checks.settled = err == nil && !res.Requeue && !p.checks.conflicted //nolint:staticcheck // Requeue is what a reconciler may still return
}

// cleanupOrder catches a reconcile that removes its finalizer from the
// object it reconciles, being deleted, and then goes on with the cleanup
// the finalizer guards: deletes something, or changes an object other than
// the one it finalized. The convention is the finalizer's: Kubernetes
// deletes the object once its last finalizer is gone, so a controller
// removes its finalizer only after its cleanup has completed; a crash
// between the removal and the rest of the cleanup leaves that rest undone
// forever, with nothing left to retry it (the garbage collector may tidy
// children with ownerReferences, never external state). Writes to the
// finalized object itself (its status) are let through.
func (p *pass) cleanupOrder(req *http.Request, w written) error {
	if w.Metadata.Name == "" || p.checks.reported {
		return nil
	}
	resource, key := resourceOf(req.URL.Path), objectKey(w.Metadata.Namespace, w.Metadata.Name)
	own := key == objectKey(p.Request.Namespace, p.Request.Name)
	update := req.Method == http.MethodPut || req.Method == http.MethodPatch
	if p.checks.finalized != "" {
		if req.Method != http.MethodDelete && (!update || own) {
			return nil
		}
		p.checks.reported = true
		return fmt.Errorf("cleanup after the finalizer: it removed %s, then made its write %s %s %s: a finalizer is removed only once the cleanup it guards is done (a crash between the two leaves the cleanup undone, with nothing to retry it)",
			p.checks.finalized, writtenBy(req, w).Verb, resource, key)
	}
	if !update || !own || w.Metadata.DeletionTimestamp == "" || strings.HasSuffix(req.URL.Path, "/status") {
		return nil
	}
	gvk, _ := w.gvk()
	inf := p.life.cache.informerOf(gvk.GroupKind())
	if inf == nil {
		return nil
	}
	seen, ok := inf.get(clientKey(w.Metadata.Namespace, w.Metadata.Name))
	if !ok {
		return nil
	}
	for _, f := range seen.GetFinalizers() {
		if !slices.Contains(w.Metadata.Finalizers, f) {
			p.checks.finalized = fmt.Sprintf("the finalizer %s of %s %s", f, resource, key)
			return nil
		}
	}
	return nil
}
