package operator

import (
	"fmt"
	"net/http"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// churn catches an operator that deletes an object and then creates it
// again for the same owner: the delete was wrong (what Sieve reports as an
// unexpected deletion, often from a stale read), and whoever used the
// object saw it go, whatever the end state. A create for a new owner of
// the same name is not churn, nor one after a user changed the owner
// (Host.IntentChanged), nor a delete made while the operator had not yet
// heard of its owner's latest change, nor the delete of an object created
// while it had not, or, for a Job or a Pod, before a user changed its
// owner.
//
// The stale-view exemption stays: an operator that deletes on a stale view
// of the owner (its spec changed back and forth, say) follows what it was
// last told, as every cache-reading controller does, and mends it once
// told more. The class the exemption used to hide, a delete of the
// current incarnation's child from a view of a previous incarnation of
// its owner, is the incarnation oracle's (incarnation.go), which needs no
// exemption: the ownerReference's uid says whose child it was.
type churn struct {
	deleted map[string]string // "resource namespace/name" -> the controller owner's uid
	// staleCreated are the objects created while the operator had not yet
	// heard of their owner's latest change: deleting one to make it again
	// from the owner's latest state (a Job's template is immutable) mends
	// what a stale view made, and is not churn.
	staleCreated map[string]string
	// changes counts a user's changes per owner uid, and createdAt is the
	// count of its owner's when each object was created: an object whose
	// spec cannot change in place (replacedToChange), made before its
	// owner changed, may be replaced after.
	changes   map[string]int
	createdAt map[string]int
}

// changed records a user's change of the owner with uid ("" for one not
// known): the deletes before it are forgotten, as the re-creates after
// it follow the user.
func (c *churn) changed(uid string) {
	c.deleted = nil
	if uid == "" {
		return
	}
	if c.changes == nil {
		c.changes = map[string]int{}
	}
	c.changes[uid]++
}

// observe records a delete, and reports a create that undoes one. current
// says whether the operator's view of owners of a kind was up to date: a
// delete made on a stale view of the owner followed what the operator was
// last told, as every cache-reading controller does, and is not counted.
func (c *churn) observe(req *http.Request, w written, current func(schema.GroupVersionKind) bool) error {
	if req.Method != http.MethodDelete && req.Method != http.MethodPost {
		return nil
	}
	if w.Metadata.Name == "" {
		return nil // a Status, or a list from deletecollection
	}
	owner, kind := w.owner()
	if owner == "" {
		return nil
	}
	key := resourceOf(req.URL.Path) + " " + w.Metadata.Namespace + "/" + w.Metadata.Name
	if req.Method == http.MethodDelete {
		if !current(kind) {
			return nil
		}
		if c.staleCreated[key] == owner {
			delete(c.staleCreated, key)
			return nil
		}
		if at, ok := c.createdAt[key]; ok && at < c.changes[owner] && replacedToChange(resourceOf(req.URL.Path)) {
			return nil // made for an owner a user has changed since
		}
		if c.deleted == nil {
			c.deleted = map[string]string{}
		}
		c.deleted[key] = owner
		return nil
	}
	if c.deleted[key] == owner {
		delete(c.deleted, key)
		return fmt.Errorf("the operator deleted %s and then created it again for the same owner", key)
	}
	if c.createdAt == nil {
		c.createdAt = map[string]int{}
	}
	c.createdAt[key] = c.changes[owner]
	if !current(kind) {
		if c.staleCreated == nil {
			c.staleCreated = map[string]string{}
		}
		c.staleCreated[key] = owner
	}
	return nil
}

// replacedToChange says whether objects of resource are replaced, not
// updated, to change them: Kubernetes refuses most changes of a Job's
// template or a Pod's spec. Deleting one of any other kind to make it
// anew is churn: an update would have done.
func replacedToChange(resource string) bool { return resource == "jobs" || resource == "pods" }
