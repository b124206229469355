package registry

import (
	"github.com/converge-dev/converge/impl/api"
)

// policyOf reads a delete's propagation policy (Background when unset;
// orphanDependents=true is the old spelling of Orphan).
func policyOf(o api.DeleteOptions) api.DeletionPropagation {
	if o.PropagationPolicy != nil {
		return *o.PropagationPolicy
	}
	if o.OrphanDependents != nil && *o.OrphanDependents {
		return api.DeletePropagationOrphan
	}
	return api.DeletePropagationBackground
}
