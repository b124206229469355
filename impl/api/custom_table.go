package api

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
)

// The custom resources beside the built-in table. They are process-wide,
// as the built-ins are: every registry and apiserver in a process serves
// the same kinds. Several control planes in one process (parallel tests)
// may each install one CRD; each is an owner of the registration, and the
// resource is served until its last owner goes. Two different definitions
// of one resource at once are refused.

type customEntry struct {
	res    CustomResource
	owners []string
}

var (
	customMu sync.Mutex // serialises writers; readers load the snapshot
	customs  atomic.Pointer[map[string]*customEntry]
)

func customSnapshot() map[string]*customEntry {
	if p := customs.Load(); p != nil {
		return *p
	}
	return nil
}

// RegisterCustom serves r for owner (a CRD's uid, say), or updates what
// owner serves. It fails when r's names clash with a built-in resource or
// with another owner's different definition.
func RegisterCustom(owner string, r CustomResource) error {
	info := r.Info
	if _, ok := byResource[info.Resource]; ok {
		return fmt.Errorf("%w: the resource %q is built in", ErrNameConflict, info.Resource)
	}
	if e, ok := byKind[info.Kind]; ok {
		return fmt.Errorf("%w: the kind %q is built in (%s)", ErrNameConflict, info.Kind, e.info.GroupResource())
	}
	customMu.Lock()
	defer customMu.Unlock()
	cur := customSnapshot()
	next := make(map[string]*customEntry, len(cur)+1)
	for res, e := range cur {
		if res == info.Resource {
			continue
		}
		if e.res.Info.Kind == info.Kind {
			return fmt.Errorf("%w: the kind %q is served by %s", ErrNameConflict, info.Kind, e.res.Info.GroupResource())
		}
		next[res] = e
	}
	owners := []string{owner}
	if e, ok := cur[info.Resource]; ok {
		others := slices.DeleteFunc(slices.Clone(e.owners), func(o string) bool { return o == owner })
		if len(others) > 0 && !sameDefinition(e.res.Info, info) {
			return fmt.Errorf("%w: %s is served with another definition", ErrNameConflict, info.GroupResource())
		}
		owners = append(others, owner)
	}
	r.Info = info.clone()
	r.Served = slices.Clone(r.Served)
	next[info.Resource] = &customEntry{res: r, owners: owners}
	customs.Store(&next)
	return nil
}

// ErrNameConflict reports a custom resource whose names are taken.
var ErrNameConflict = fmt.Errorf("api: name conflict")

func sameDefinition(a, b ResourceInfo) bool {
	return a.Group == b.Group && a.Kind == b.Kind && a.ListKind == b.ListKind && a.Namespaced == b.Namespaced
}

// UnregisterCustom ends owner's registration of resource; the resource is
// no longer served when no owner is left.
func UnregisterCustom(owner, resource string) {
	customMu.Lock()
	defer customMu.Unlock()
	cur := customSnapshot()
	e, ok := cur[resource]
	if !ok {
		return
	}
	next := make(map[string]*customEntry, len(cur))
	for res, ce := range cur {
		next[res] = ce
	}
	owners := slices.DeleteFunc(slices.Clone(e.owners), func(o string) bool { return o == owner })
	if len(owners) == 0 {
		delete(next, resource)
	} else {
		next[resource] = &customEntry{res: e.res, owners: owners}
	}
	customs.Store(&next)
}

// StorageName is the store's name of a resource: a custom resource's is
// its full name ("widgets.example.com"), as upstream keys custom resources
// by group, so that the store keeps them all under one prefix; any other's
// is the resource itself.
func StorageName(resource string) string {
	if e, ok := customSnapshot()[resource]; ok {
		return e.res.Info.Resource + "." + e.res.Info.Group
	}
	return resource
}

// ResourceNamed is the resource a full name stands for: StorageName's
// inverse, and the plural of a kubectl-style "plural.group" (no plural
// holds a dot).
func ResourceNamed(full string) string {
	plural, _, _ := strings.Cut(full, ".")
	return plural
}

// LookupCustom finds a custom resource by its plural name.
func LookupCustom(resource string) (CustomResource, bool) {
	e, ok := customSnapshot()[resource]
	if !ok {
		return CustomResource{}, false
	}
	r := e.res
	r.Info = r.Info.clone()
	return r, true
}

// customByKind finds a custom resource by kind.
func customByKind(kind string) (*customEntry, bool) {
	for _, e := range customSnapshot() {
		if e.res.Info.Kind == kind {
			return e, true
		}
	}
	return nil, false
}

func customByShortName(short string) (*customEntry, bool) {
	for _, e := range customSnapshot() {
		if slices.Contains(e.res.Info.ShortNames, short) {
			return e, true
		}
	}
	return nil, false
}

// sortedCustoms lists the custom resources by resource name, so that
// discovery and Resources are stable.
func sortedCustoms() []*customEntry {
	snap := customSnapshot()
	out := make([]*customEntry, 0, len(snap))
	for _, e := range snap {
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].res.Info.Resource < out[j].res.Info.Resource })
	return out
}

// resolveCustom is ResolveResource's search of the custom resources.
func resolveCustom(n, group string) (ResourceInfo, bool) {
	for _, e := range sortedCustoms() {
		r := e.res.Info
		if group != "" && group != r.Group {
			continue
		}
		if n == r.Resource || n == r.Singular || n == strings.ToLower(r.Kind) || slices.Contains(r.ShortNames, n) {
			return r.clone(), true
		}
	}
	return ResourceInfo{}, false
}

// CustomKind is the served custom resource of an apiVersion and kind, as
// an ownerReference names them.
func CustomKind(apiVersion, kind string) (ResourceInfo, bool) {
	return customFor(TypeMeta{APIVersion: apiVersion, Kind: kind})
}

// customFor is the custom resource of an object's kind and group.
func customFor(tm TypeMeta) (ResourceInfo, bool) {
	e, ok := customByKind(tm.Kind)
	if !ok {
		return ResourceInfo{}, false
	}
	group, _, _ := strings.Cut(tm.APIVersion, "/")
	if !strings.Contains(tm.APIVersion, "/") {
		group = ""
	}
	if group != e.res.Info.Group {
		return ResourceInfo{}, false
	}
	return e.res.Info.clone(), true
}
