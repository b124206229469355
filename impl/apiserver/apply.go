package apiserver

import (
	"fmt"
	"net/http"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
	"sigs.k8s.io/yaml"

	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/impl/registry"
)

// applyConfiguration is server-side apply on the object level: Kubernetes'
// field manager merges the applied configuration patch into live (nil: a
// create), checks and records field ownership for manager, and defaults
// the result. subresource is "" or "status": an apply to status owns only
// what the status subresource writes. The object returned is not yet
// validated. Conflicts are a 409 Conflict Status unless force, which takes
// the fields over.
func applyConfiguration(info api.ResourceInfo, live api.Object, patch []byte, manager, subresource string, force bool) (api.Object, error) {
	if manager == "" {
		return nil, api.NewBadRequest("PATCH requests with Content-Type application/apply-patch+yaml require a fieldManager")
	}
	// Strict decoding rejects unknown fields and a wrong kind or apiVersion.
	if _, err := api.DecodeAt(info.Resource, info.APIVersion(), patch); err != nil {
		return nil, err
	}
	applied := &unstructured.Unstructured{}
	if err := yaml.Unmarshal(patch, &applied.Object); err != nil {
		return nil, api.NewBadRequest(fmt.Sprintf("error decoding YAML: %v", err))
	}
	fm, err := fieldManagerFor(info, gvkOf(info), subresource)
	if err != nil {
		return nil, api.NewInternalError(err)
	}
	liveU, err := toUnstructured(info, live)
	if err != nil {
		return nil, api.NewInternalError(err)
	}
	merged, err := fm.Apply(liveU, applied, manager, force)
	if err != nil {
		return nil, asStatusError(err)
	}
	return fromUnstructured(info, merged)
}

// recordedFields is the managedFields Kubernetes' field manager gives a
// write by manager through subresource ("" or "status") that turns live
// (nil: a create) into in. in is read, not changed, and must be defaulted
// already, as Kubernetes records the decoded, defaulted object (so a
// creator owns the defaults too). manager's Update entry owns every field whose value it
// changed, and a client that sends managedFields of its own to the main
// resource (kubectl apply --server-side migrating client-side apply's
// fields) sets the ownership before the write. On any failure live's
// ownership stays, as UpdateNoErrors keeps it.
func recordedFields(live, in api.Object, manager, subresource string) []api.ManagedFieldsEntry {
	var kept []api.ManagedFieldsEntry
	if live != nil {
		kept = api.Meta(live).ManagedFields
	}
	if manager == "" {
		return kept
	}
	info, ok := api.ResourceFor(in)
	if !ok {
		return kept
	}
	fm, err := fieldManagerFor(info, gvkOf(info), subresource)
	if err != nil {
		return kept
	}
	liveR, err1 := recordingObjectOf(info, live)
	inR, err2 := recordingObjectOf(info, in)
	if err1 != nil || err2 != nil {
		return kept
	}
	recorded, err := meta.Accessor(fm.UpdateNoErrors(liveR, inR, manager))
	if err != nil {
		return kept
	}
	return ownEntries(recorded.GetManagedFields())
}

// fieldRecorder records manager's updates through subresource ("" or
// "status") in the registry's retry loop (registry.WithManagedFields).
func fieldRecorder(manager, subresource string) registry.ManagedFieldsFunc {
	return func(live, in api.Object) []api.ManagedFieldsEntry {
		return recordedFields(live, in, manager, subresource)
	}
}

// replicasPaths is where each scalable kind keeps what its scale
// subresource writes.
var replicasPaths = managedfields.ResourcePathMappings{
	"apps/v1": fieldpath.MakePathOrDie("spec", "replicas"),
}

var scaleKind = schema.GroupVersionKind{Group: "autoscaling", Version: "v1", Kind: "Scale"}

// recordScale records a write through the scale subresource (live's
// Scale was old, the request's is req) into obj, the parent about to be
// stored, as Kubernetes' scale handler does: the parent's ownership is
// seen through the Scale, the Scale's field manager records manager's
// Update entry for subresource "scale", and the result is mapped back to
// the parent's spec.replicas.
func recordScale(obj api.Object, old, req *api.Scale, manager string) {
	if manager == "" {
		return
	}
	info, _ := api.ResourceFor(obj)
	paths := replicasPaths
	if c, ok := obj.(*api.CustomObject); ok {
		if sc := customScale(c); sc != nil {
			paths = managedfields.ResourcePathMappings{info.APIVersion(): fieldpath.MakePathOrDie(toPathElements(jsonPathFields(sc.SpecReplicasPath))...)}
		}
	}
	handler := managedfields.NewScaleHandler(kubeEntries(api.Meta(obj).ManagedFields), schema.GroupVersion{Group: info.Group, Version: info.Version}, paths)
	seen, err := handler.ToSubresource()
	if err != nil {
		return
	}
	fm, err := fieldManagerFor(api.ResourceInfo{}, scaleKind, "scale")
	if err != nil {
		return
	}
	oldU, err1 := toUnstructured(api.ResourceInfo{}, old)
	newU, err2 := toUnstructured(api.ResourceInfo{}, req)
	if err1 != nil || err2 != nil {
		return
	}
	oldU.SetManagedFields(seen)
	newU.SetManagedFields(nil)
	recorded, err := fm.Update(oldU, newU, manager)
	if err != nil {
		return
	}
	u, ok := recorded.(*unstructured.Unstructured)
	if !ok {
		return
	}
	entries, err := handler.ToParent(u.GetManagedFields())
	if err != nil {
		return
	}
	api.Meta(obj).ManagedFields = ownEntries(entries)
}

// kubeEntries is a copy of what an object records, for the field
// manager to work on.
func kubeEntries(in []api.ManagedFieldsEntry) []metav1.ManagedFieldsEntry { return slices.Clone(in) }

// ownEntries is what the field manager recorded, with its times to the
// second, as the stored object will read back, and none as nil.
func ownEntries(in []metav1.ManagedFieldsEntry) []api.ManagedFieldsEntry {
	if len(in) == 0 {
		return nil
	}
	for i, e := range in {
		if e.Time != nil {
			t := api.NewTime(e.Time.Time)
			in[i].Time = &t
		}
	}
	return in
}

// managerFromRequest is ?fieldManager=, else the User-Agent's first token
// ("kubectl/v1.32.4 (linux/amd64) ..." -> "kubectl"), as Kubernetes does.
func managerFromRequest(r *http.Request) string {
	if m := r.URL.Query().Get("fieldManager"); m != "" {
		return m
	}
	ua := strings.TrimSpace(r.Header.Get("User-Agent"))
	if i := strings.IndexAny(ua, "/ "); i >= 0 {
		ua = ua[:i]
	}
	if ua == "" {
		return "unknown"
	}
	return ua
}
