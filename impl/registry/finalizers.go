package registry

import (
	"fmt"
	"slices"

	"github.com/converge-dev/converge/impl/api"
)

// The garbage collector's finalizers, as Kubernetes names them.
const (
	finalizerOrphan     = "orphan"
	finalizerForeground = "foregroundDeletion"
)

// deletionFinalizers is the finalizer list a delete leaves, as the
// apiserver computes it for the garbage collector: both GC finalizers are
// dropped, then the policy's is appended; a delete that names no policy
// (nor orphanDependents) keeps the ones the object has. An unchanged set
// keeps the old list as it is.
func deletionFinalizers(fs []string, o api.DeleteOptions) []string {
	named := o.PropagationPolicy != nil || o.OrphanDependents != nil
	policy := policyOf(o)
	orphan := policy == api.DeletePropagationOrphan || (!named && slices.Contains(fs, finalizerOrphan))
	foreground := policy == api.DeletePropagationForeground || (!named && slices.Contains(fs, finalizerForeground))
	var out []string
	for _, f := range fs {
		if f != finalizerOrphan && f != finalizerForeground {
			out = append(out, f)
		}
	}
	if orphan {
		out = append(out, finalizerOrphan)
	}
	if foreground {
		out = append(out, finalizerForeground)
	}
	if sameSet(fs, out) {
		return fs
	}
	return out
}

func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	return true
}

// checkNoNewFinalizers refuses an update that adds a finalizer to an
// object being deleted, with Kubernetes' 422.
func checkNoNewFinalizers(info api.ResourceInfo, old, next api.Object) error {
	om, nm := api.Meta(old), api.Meta(next)
	if om.DeletionTimestamp == nil {
		return nil
	}
	var added []string
	for _, f := range nm.Finalizers {
		if !slices.Contains(om.Finalizers, f) && !slices.Contains(added, f) {
			added = append(added, f)
		}
	}
	if len(added) == 0 {
		return nil
	}
	slices.Sort(added)
	return api.NewInvalid(info.GroupKind(), nm.Name, api.FieldErrors{{
		Type: api.CauseTypeFieldValueForbidden, Field: "metadata.finalizers",
		Detail: fmt.Sprintf("no new finalizers can be added if the object is being deleted, found new finalizers %#v", added),
	}})
}

// deleteAfterUpdate tells whether an update leaves next to be deleted at
// once, as upstream's shouldDeleteDuringUpdate: it was being deleted, its
// last finalizer went, and no grace period is left to wait for; a
// namespace's spec.finalizers must be empty too (namespace.go).
func deleteAfterUpdate(old, next api.Object) bool {
	om := api.Meta(old)
	if om.DeletionTimestamp == nil || len(api.Meta(next).Finalizers) > 0 || namespaceHeld(next) {
		return false
	}
	return om.DeletionGracePeriodSeconds == nil || *om.DeletionGracePeriodSeconds == 0
}

// gracePending tells whether obj waits for its kubelet: a graceful deletion
// whose grace period a delete with grace does not shorten.
func gracePending(m *api.ObjectMeta, grace *int64) bool {
	if m.DeletionTimestamp == nil || m.DeletionGracePeriodSeconds == nil || *m.DeletionGracePeriodSeconds == 0 {
		return false
	}
	return grace == nil || *grace >= *m.DeletionGracePeriodSeconds
}
