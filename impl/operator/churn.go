package operator

import (
	"encoding/json"
	"fmt"
	"net/http"
)

// churn catches an operator that deletes an object and then creates it
// again for the same owner: the delete was wrong (what Sieve reports as an
// unexpected deletion, often from a stale read), and whoever used the
// object saw it go, whatever the end state. A delete while the owner is
// being deleted, or a create for a new owner of the same name, is not
// churn.
type churn struct {
	deleted map[string]string // "resource namespace/name" -> the controller owner's uid
}

// written is what churn reads of a write's answer.
type written struct {
	Metadata struct {
		Name            string `json:"name"`
		Namespace       string `json:"namespace"`
		OwnerReferences []struct {
			UID        string `json:"uid"`
			Controller *bool  `json:"controller"`
		} `json:"ownerReferences"`
	} `json:"metadata"`
}

func (w written) owner() string {
	for _, r := range w.Metadata.OwnerReferences {
		if r.Controller != nil && *r.Controller {
			return r.UID
		}
	}
	return ""
}

// observe records a delete, and reports a create that undoes one.
func (c *churn) observe(req *http.Request, body []byte) error {
	if req.Method != http.MethodDelete && req.Method != http.MethodPost {
		return nil
	}
	var w written
	if json.Unmarshal(body, &w) != nil || w.Metadata.Name == "" {
		return nil // a Status, or a list from deletecollection
	}
	owner := w.owner()
	if owner == "" {
		return nil
	}
	key := resourceOf(req.URL.Path) + " " + w.Metadata.Namespace + "/" + w.Metadata.Name
	if req.Method == http.MethodDelete {
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
