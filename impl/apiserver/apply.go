package apiserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"sort"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/impl/apiserver/internal/fieldpath"
)

// Managed-fields operations, as Kubernetes spells them.
const (
	operationApply  = "Apply"
	operationUpdate = "Update"
	fieldsV1        = "FieldsV1"
	// causeFieldManagerConflict is the StatusCause reason of an apply
	// conflict.
	causeFieldManagerConflict api.CauseType = "FieldManagerConflict"
)

// managerEntry is one metadata.managedFields entry with its set parsed.
type managerEntry struct {
	manager, operation, apiVersion, subresource string
	time                                        *api.Time
	set                                         *fieldpath.Set
}

func (e managerEntry) is(manager, operation string) bool {
	return e.manager == manager && e.operation == operation && e.subresource == ""
}

// readManagers parses obj's managedFields; an entry whose fieldsV1 does
// not parse is dropped (its fields become unowned) rather than failing.
func readManagers(obj api.Object) []managerEntry {
	if obj == nil {
		return nil
	}
	var out []managerEntry
	for _, mf := range obj.GetObjectMeta().ManagedFields {
		set, err := fieldpath.ParseFieldsV1(mf.FieldsV1)
		if err != nil {
			continue
		}
		out = append(out, managerEntry{manager: mf.Manager, operation: mf.Operation,
			apiVersion: mf.APIVersion, subresource: mf.Subresource, time: mf.Time, set: set})
	}
	return out
}

// writeManagers stores entries into obj, dropping empty ones.
func writeManagers(obj api.Object, entries []managerEntry) error {
	var out []api.ManagedFieldsEntry
	for _, e := range entries {
		if e.set.Len() == 0 {
			continue
		}
		b, err := e.set.MarshalFieldsV1()
		if err != nil {
			return api.NewInternalError(err)
		}
		out = append(out, api.ManagedFieldsEntry{Manager: e.manager, Operation: e.operation,
			APIVersion: e.apiVersion, Time: e.time, FieldsType: fieldsV1, FieldsV1: b, Subresource: e.subresource})
	}
	obj.GetObjectMeta().ManagedFields = out
	return nil
}

// toJSONMap is obj (or a YAML/JSON document) as generic JSON with numbers
// kept exact.
func toJSONMap(doc []byte) (map[string]any, error) {
	j, err := yaml.YAMLToJSON(doc)
	if err != nil {
		return nil, err
	}
	return jsonMap(j)
}

// jsonMap decodes a JSON document into generic values (numbers as text).
func jsonMap(j []byte) (map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(j))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return nil, err
	}
	if m == nil {
		m = map[string]any{}
	}
	return m, nil
}

func objectMap(obj api.Object) (map[string]any, error) {
	if obj == nil {
		return map[string]any{}, nil
	}
	b, err := api.Marshal(obj)
	if err != nil {
		return nil, err
	}
	return jsonMap(b) // already JSON: no YAML pass
}

func kindType(info api.ResourceInfo) (reflect.Type, error) {
	o, err := api.New(info.Resource)
	if err != nil {
		return nil, api.NewInternalError(err)
	}
	return reflect.TypeOf(o).Elem(), nil
}

// sameJSON compares two generic JSON values; numbers compare by text.
func sameJSON(a, b any) bool {
	ja, errA := json.Marshal(a)
	jb, errB := json.Marshal(b)
	return errA == nil && errB == nil && bytes.Equal(ja, jb)
}

// applyConflict is one field another manager owns with another value.
type applyConflict struct {
	manager, apiVersion, subresource string
	path                             fieldpath.Path
}

// applyConfiguration is server-side apply on the object level: it merges
// the applied configuration patch into live (nil: create), checks and
// records field ownership for manager, and returns the object to store
// (not yet defaulted or validated). Conflicts are a 409 Conflict Status
// unless force, which takes the fields over.
func applyConfiguration(info api.ResourceInfo, live api.Object, patch []byte, manager string, force bool) (api.Object, error) {
	if manager == "" {
		return nil, api.NewBadRequest("PATCH requests with Content-Type application/apply-patch+yaml require a fieldManager")
	}
	// Strict decoding rejects unknown fields and a wrong kind or apiVersion.
	if _, err := api.Decode(info.Resource, patch); err != nil {
		return nil, err
	}
	t, err := kindType(info)
	if err != nil {
		return nil, err
	}
	applied, err := toJSONMap(patch)
	if err != nil {
		return nil, api.NewBadRequest(fmt.Sprintf("error decoding YAML: %v", err))
	}
	liveMap, err := objectMap(live)
	if err != nil {
		return nil, api.NewInternalError(err)
	}
	appliedSet := fieldSet(applied, t)
	entries := readManagers(live)

	var conflicts []applyConflict
	var owners []int // conflicts[i] is with entries[owners[i]]
	for i, e := range entries {
		if e.is(manager, operationApply) {
			continue
		}
		for _, p := range appliedSet.Intersection(e.set).Paths() {
			if appliedSet.HasBelow(p) {
				continue // a container: its members are checked one by one
			}
			av, _ := valueAt(applied, t, fieldExt{}, p)
			lv, ok := valueAt(liveMap, t, fieldExt{}, p)
			if !ok || sameJSON(av, lv) {
				continue // same value: shared ownership, as in Kubernetes
			}
			conflicts = append(conflicts, applyConflict{manager: e.manager, apiVersion: e.apiVersion, subresource: e.subresource, path: p})
			owners = append(owners, i)
		}
	}
	if len(conflicts) > 0 && !force {
		if rest := notLastApplied(conflicts, live, t, manager); len(rest) > 0 {
			return nil, newApplyConflict(rest)
		}
		force = true // every conflict is kubectl's own client-side apply's
	}
	if force {
		for i, c := range conflicts {
			entries[owners[i]].set.Remove(c.path)
		}
	}

	merged, _ := mergeApplied(liveMap, applied, t, fieldExt{}).(map[string]any)
	var previous *fieldpath.Set
	others := &fieldpath.Set{}
	for _, e := range entries {
		if e.is(manager, operationApply) {
			previous = e.set
		} else {
			others = others.Union(e.set)
		}
	}
	// Fields this manager applied before and omits now go, unless someone
	// else still owns them (or something below them). Shallowest first, so
	// a list item goes whole while its key fields still identify it.
	gone := previous.Difference(appliedSet).Paths()
	sort.SliceStable(gone, func(i, j int) bool { return len(gone[i]) < len(gone[j]) })
	for _, p := range gone {
		if others.Has(p) || others.HasBelow(p) || appliedSet.HasBelow(p) || isItemKeyField(p) {
			continue
		}
		merged, _ = removeAt(merged, t, fieldExt{}, p).(map[string]any)
	}
	if md, ok := merged["metadata"].(map[string]any); ok {
		delete(md, "managedFields")
	}
	b, err := json.Marshal(merged)
	if err != nil {
		return nil, api.NewInternalError(err)
	}
	obj, err := api.Decode(info.Resource, b)
	if err != nil {
		return nil, err
	}

	apiVersion := info.APIVersion()
	found := false
	for i := range entries {
		if entries[i].is(manager, operationApply) {
			entries[i].set, entries[i].apiVersion, found = appliedSet, apiVersion, true
		}
	}
	if !found {
		entries = append(entries, managerEntry{manager: manager, operation: operationApply, apiVersion: apiVersion, set: appliedSet})
	}
	objMap, err := objectMap(obj)
	if err != nil {
		return nil, api.NewInternalError(err)
	}
	pruneManagers(entries, fieldSet(objMap, t))
	return obj, writeManagers(obj, entries)
}

// isItemKeyField reports a key field of a keyed-list item: it goes with
// its item, never alone.
func isItemKeyField(p fieldpath.Path) bool {
	if len(p) < 2 || !strings.HasPrefix(p[len(p)-2], "k:") || !strings.HasPrefix(p[len(p)-1], "f:") {
		return false
	}
	var keys map[string]json.RawMessage
	if json.Unmarshal([]byte(p[len(p)-2][2:]), &keys) != nil {
		return false
	}
	_, ok := keys[p[len(p)-1][2:]]
	return ok
}

// pruneManagers drops owned paths that are not present (in the object's
// fieldSet).
func pruneManagers(entries []managerEntry, present *fieldpath.Set) {
	for i := range entries {
		entries[i].set = entries[i].set.Intersection(present)
	}
}

// newApplyConflict is Kubernetes' 409 for an apply that would change
// fields other managers own.
func newApplyConflict(conflicts []applyConflict) *api.StatusError {
	byManager := map[string][]string{}
	var order []string
	causes := make([]api.StatusCause, 0, len(conflicts))
	for _, c := range conflicts {
		who := fmt.Sprintf("%q using %s", c.manager, c.apiVersion)
		if c.subresource != "" {
			who = fmt.Sprintf("%q with subresource %q using %s", c.manager, c.subresource, c.apiVersion)
		}
		if _, ok := byManager[who]; !ok {
			order = append(order, who)
		}
		byManager[who] = append(byManager[who], c.path.String())
		causes = append(causes, api.StatusCause{Type: causeFieldManagerConflict,
			Message: "conflict with " + who, Field: c.path.String()})
	}
	var msg string
	if len(conflicts) == 1 {
		msg = fmt.Sprintf("Apply failed with 1 conflict: conflict with %s: %s", order[0], byManager[order[0]][0])
	} else {
		var b strings.Builder
		fmt.Fprintf(&b, "Apply failed with %d conflicts: ", len(conflicts))
		for i, who := range order {
			if i > 0 {
				b.WriteString("\n")
			}
			b.WriteString("conflicts with " + who + ":")
			for _, p := range byManager[who] {
				b.WriteString("\n- " + p)
			}
		}
		msg = b.String()
	}
	return &api.StatusError{Status: api.Status{
		TypeMeta: api.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   api.StatusFailure,
		Code:     http.StatusConflict,
		Reason:   api.StatusReasonConflict,
		Message:  msg,
		Details:  &api.StatusDetails{Causes: causes},
	}}
}

// recordUpdate records a PUT or non-apply PATCH by manager in newObj's
// managedFields: manager gets an Update entry owning every field whose
// value changed (taken from other managers without conflict, as in
// Kubernetes), and fields gone from the object are owned by nobody. old is
// nil for a create. The ownership before the write is old's, unless the
// client sent managedFields of its own (sentManagers): then, as in
// Kubernetes, those. Status is never recorded.
func recordUpdate(old, newObj api.Object, manager string) {
	if newObj == nil || manager == "" {
		return
	}
	info, ok := api.ResourceFor(newObj)
	if !ok {
		return
	}
	t := reflect.TypeOf(newObj).Elem()
	oldMap, err1 := objectMap(old)
	newMap, err2 := objectMap(newObj)
	if err1 != nil || err2 != nil {
		return
	}
	entries := readManagers(old)
	if old == nil {
		entries = nil
	} else if sent, ok := sentManagers(old, newObj); ok {
		entries = sent
	}
	newSet := fieldSet(newMap, t)
	changed := newSet // a create changes every field
	if old != nil {
		changed = &fieldpath.Set{}
		for _, p := range newSet.Paths() {
			ov, found := valueAt(oldMap, t, fieldExt{}, p)
			if !found || (!newSet.HasBelow(p) && !sameJSON(ov, mustValue(newMap, t, p))) {
				changed.Insert(p)
			}
		}
	}
	found := false
	for i := range entries {
		if entries[i].is(manager, operationUpdate) {
			entries[i].set, entries[i].apiVersion, found = entries[i].set.Union(changed), info.APIVersion(), true
			continue
		}
		entries[i].set = entries[i].set.Difference(changed)
	}
	if !found && changed.Len() > 0 {
		entries = append(entries, managerEntry{manager: manager, operation: operationUpdate,
			apiVersion: info.APIVersion(), set: changed})
	}
	if old != nil { // a create's one entry owns exactly what is present
		pruneManagers(entries, newSet)
	}
	_ = writeManagers(newObj, entries)
}

func mustValue(m map[string]any, t reflect.Type, p fieldpath.Path) any {
	v, _ := valueAt(m, t, fieldExt{}, p)
	return v
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
