package apiserver

import (
	"reflect"

	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/impl/apiserver/internal/fieldpath"
)

// sentManagers is the ownership a client wrote itself in an update or
// patch of the main resource, which Kubernetes' field manager takes as
// the ownership before the write (decodeLiveOrNew): kubectl apply
// --server-side moves kubectl-client-side-apply's fields to its own
// manager this way before it applies. One empty entry resets ownership
// to nobody. ok is false when the request left managedFields as they were,
// sent none, or sent some that do not parse: the live ownership stands.
func sentManagers(old, newObj api.Object) ([]managerEntry, bool) {
	sent := newObj.GetObjectMeta().ManagedFields
	if len(sent) == 1 && reflect.DeepEqual(sent[0], api.ManagedFieldsEntry{}) {
		return []managerEntry{}, true
	}
	if len(sent) == 0 || reflect.DeepEqual(sent, old.GetObjectMeta().ManagedFields) {
		return nil, false
	}
	out := make([]managerEntry, 0, len(sent))
	for _, mf := range sent {
		set, err := fieldpath.ParseFieldsV1(mf.FieldsV1)
		if err != nil || mf.Manager == "" && mf.Operation == "" {
			return nil, false
		}
		out = append(out, managerEntry{manager: mf.Manager, operation: mf.Operation,
			apiVersion: mf.APIVersion, subresource: mf.Subresource, time: mf.Time, set: set})
	}
	return out, true
}

// replicasPath is spec.replicas, what the scale subresource writes.
var replicasPath = fieldpath.Path{fieldpath.Field("spec"), fieldpath.Field("replicas")}

// recordScale records a write of spec.replicas through the scale
// subresource, as Kubernetes' scale handler does: when the value changes,
// manager's Update entry for subresource "scale" (in the parent's
// apiVersion and paths) takes the field from every other manager.
func recordScale(obj api.Object, changed bool, manager string) {
	if !changed || manager == "" {
		return
	}
	info, ok := api.ResourceFor(obj)
	if !ok {
		return
	}
	entries := readManagers(obj)
	found := false
	for i := range entries {
		e := &entries[i]
		if e.manager == manager && e.operation == operationUpdate && e.subresource == "scale" {
			e.set.Insert(replicasPath)
			e.apiVersion, found = info.APIVersion(), true
			continue
		}
		e.set = e.set.Difference(fieldpath.NewSet(replicasPath))
	}
	if !found {
		entries = append(entries, managerEntry{manager: manager, operation: operationUpdate,
			apiVersion: info.APIVersion(), subresource: "scale", set: fieldpath.NewSet(replicasPath)})
	}
	_ = writeManagers(obj, entries)
}

// lastAppliedAnnotation is where kubectl's client-side apply keeps what
// it applied.
const lastAppliedAnnotation = "kubectl.kubernetes.io/last-applied-configuration"

// notLastApplied is the conflicts that Kubernetes' last-applied manager
// does not let through. An apply by "kubectl" (kubectl apply
// --server-side) may take over, without --force-conflicts, every field the
// object's client-side apply annotation names, whoever owns it now: it
// upgrades an object from client-side to server-side apply. Only when
// every conflict is such a field is the apply forced; otherwise the rest
// are the answer. Other managers get every conflict.
func notLastApplied(conflicts []applyConflict, live api.Object, t reflect.Type, manager string) []applyConflict {
	if manager != "kubectl" || live == nil {
		return conflicts
	}
	last := live.GetObjectMeta().Annotations[lastAppliedAnnotation]
	if last == "" {
		return conflicts
	}
	lastMap, err := jsonMap([]byte(last))
	if err != nil {
		return conflicts
	}
	allowed := fieldSet(lastMap, t)
	var rest []applyConflict
	for _, c := range conflicts {
		if !allowed.Has(c.path) {
			rest = append(rest, c)
		}
	}
	return rest
}
