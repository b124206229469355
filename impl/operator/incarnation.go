package operator

import (
	"fmt"
	"net/http"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// staleIncarnation catches a reconcile that deleted the child of its
// owner's current incarnation while its view held a previous incarnation
// of that owner: same name, another uid (Sieve's time-travel bug,
// pravega/zookeeper-operator#312, datastax/cass-operator#412: after a
// restart against a lagging apiserver the operator sees its old custom
// resource, deleting, runs its cleanup and deletes the children by name,
// which are the new one's). The convention is Kubernetes' own: an
// ownerReference's uid names the owner incarnation the dependent belongs
// to (the garbage collector deletes a dependent whose owner uid is gone,
// whatever the name). A delete of a child whose owner uid is no longer
// alive is tidying garbage, not this bug, and is left alone; so is one
// made while the view holds no owner of that name at all.
func (h *Host) staleIncarnation(p *pass, req *http.Request, w written) error {
	if req.Method != http.MethodDelete || w.Metadata.Name == "" {
		return nil
	}
	owner, uid, gvk, ok := w.controllerRef()
	if !ok || uid == "" {
		return nil
	}
	inf := p.life.cache.informerOf(gvk.GroupKind())
	if inf == nil {
		return nil // the operator does not watch the owner: it read none
	}
	ns := w.Metadata.Namespace
	seen, found := inf.get(clientKey(ns, owner))
	if !found && ns != "" {
		ns = "" // a cluster-scoped owner
		seen, found = inf.get(clientKey("", owner))
	}
	if !found || string(seen.GetUID()) == uid {
		return nil
	}
	if h.liveUID(inf, ns, owner) != uid {
		return nil
	}
	deleting := ""
	if seen.GetDeletionTimestamp() != nil {
		deleting = ", being deleted"
	}
	return fmt.Errorf("acted on a previous incarnation's children: its view held %s %s of uid %s%s, a previous incarnation, and it deleted %s %s, a child of the current incarnation (uid %s); the %s informer had %d undelivered events",
		gvk.Kind, objectKey(ns, owner), seen.GetUID(), deleting, resourceOf(req.URL.Path), objectKey(w.Metadata.Namespace, w.Metadata.Name), uid,
		inf.inner.Resource(), inf.inner.Pending())
}

// liveUID is the uid of the object as the apiserver serves it now ("" if
// none).
func (h *Host) liveUID(inf *steppedInformer, namespace, name string) string {
	return h.liveMeta(inf, namespace, name).Metadata.UID
}

// informerOf is the informer of kind gk, if the operator watches it.
func (c *steppedCache) informerOf(gk schema.GroupKind) *steppedInformer {
	if c == nil {
		return nil
	}
	for _, i := range c.all() {
		if i.gvk.GroupKind() == gk {
			return i
		}
	}
	return nil
}

// Cached is the uid and resource version of the object the operator's
// informer of gk holds under namespace/name, if it holds one.
func (h *Host) Cached(gk schema.GroupKind, namespace, name string) (uid string, rev string, ok bool) {
	inf := h.run.cache.informerOf(gk)
	if inf == nil {
		return "", "", false
	}
	o, ok := inf.get(clientKey(namespace, name))
	if !ok {
		return "", "", false
	}
	return string(o.GetUID()), o.GetResourceVersion(), true
}

func clientKey(namespace, name string) client.ObjectKey {
	return client.ObjectKey{Namespace: namespace, Name: name}
}
