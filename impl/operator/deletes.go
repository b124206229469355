package operator

import (
	"net/http"
	"net/http/httptest"
	"slices"
)

// Deleted is one delete of the operator that landed, with what the
// harness saw of the deleted object's controller owner at that moment:
// the owner as the apiserver served it, and as the operator's view held
// it. CheckOperator compares these against the deletes of a fault-free
// sequential run (Sieve's destructive-operation history check).
type Deleted struct {
	Item                                  // the reconcile that deleted
	Resource, Namespace, Name, UID string // the deleted object
	OwnerKind, OwnerName, OwnerUID string // its controller ownerReference
	Watched                        bool   // the operator watches the owner's kind
	OwnerAlive                     bool   // the apiserver served the owner of OwnerUID, not being deleted
	Viewed                         bool   // the operator's view held an owner of that name
	ViewUID, ViewRev               string // the one it held
	ViewDeleting                   bool   // it held it as being deleted
	Pending                        int    // the owner informer's undelivered events
}

// noteDeleted records a landed delete of a reconcile that names its
// controller owner; h.mu is held.
func (h *Host) noteDeleted(p *pass, req *http.Request, w written) {
	if req.Method != http.MethodDelete || w.Metadata.Name == "" {
		return
	}
	owner, uid, gvk, ok := w.controllerRef()
	if !ok || uid == "" {
		return
	}
	d := Deleted{Item: p.Item, Resource: resourceOf(req.URL.Path), Namespace: w.Metadata.Namespace, Name: w.Metadata.Name, UID: w.Metadata.UID,
		OwnerKind: gvk.Kind, OwnerName: owner, OwnerUID: uid}
	if inf := p.life.cache.informerOf(gvk.GroupKind()); inf != nil {
		d.Watched = true
		ns := w.Metadata.Namespace
		seen, found := inf.get(clientKey(ns, owner))
		if !found && ns != "" {
			if o, ok := inf.get(clientKey("", owner)); ok {
				ns, seen, found = "", o, true // a cluster-scoped owner
			}
		}
		if found {
			d.Viewed, d.ViewUID, d.ViewRev, d.ViewDeleting = true, string(seen.GetUID()), seen.GetResourceVersion(), seen.GetDeletionTimestamp() != nil
		}
		live := h.liveMeta(inf, ns, owner)
		d.OwnerAlive = live.Metadata.UID == uid && live.Metadata.DeletionTimestamp == ""
		d.Pending = inf.inner.Pending()
	}
	h.deleted = append(h.deleted, d)
}

// Deletes hands over the deletes recorded since the last call.
func (h *Host) Deletes() []Deleted {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := slices.Clone(h.deleted)
	h.deleted = nil
	return out
}

// liveMeta is the object as the apiserver serves it now (empty if none),
// read past the operator's client: the harness's own look.
func (h *Host) liveMeta(inf *steppedInformer, namespace, name string) written {
	gvk := inf.gvk
	path := "/apis/" + gvk.Group + "/" + gvk.Version
	if gvk.Group == "" {
		path = "/api/" + gvk.Version
	}
	if namespace != "" {
		path += "/namespaces/" + namespace
	}
	path += "/" + inf.inner.Resource() + "/" + name
	rec := httptest.NewRecorder()
	h.cfg.Handler.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
	if rec.Code != http.StatusOK {
		return written{}
	}
	return answer(rec.Body.Bytes())
}
