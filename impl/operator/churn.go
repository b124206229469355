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
// heard of its owner's latest change.
type churn struct {
	deleted map[string]string // "resource namespace/name" -> the controller owner's uid
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
	return nil
}
