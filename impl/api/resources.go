package api

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
)

// ErrUnknownResource reports a resource, kind or short name not in the table.
var ErrUnknownResource = errors.New("api: unknown resource")

// GroupResource names a resource in an API group ("deployments.apps").
type GroupResource struct {
	Group    string
	Resource string
}

// String is "resource.group", or "resource" for the core group, as
// Kubernetes prints it in error messages.
func (gr GroupResource) String() string {
	if gr.Group == "" {
		return gr.Resource
	}
	return gr.Resource + "." + gr.Group
}

// GroupKind names a kind in an API group ("Deployment.apps").
type GroupKind struct {
	Group string
	Kind  string
}

// String is "Kind.group", or "Kind" for the core group.
func (gk GroupKind) String() string {
	if gk.Group == "" {
		return gk.Kind
	}
	return gk.Kind + "." + gk.Group
}

// Subresource is one subresource of a resource, e.g. deployments/scale.
type Subresource struct {
	Name    string // "status", "scale", "binding"
	Kind    string // the kind of its body
	Group   string
	Version string
	Verbs   []string
}

// APIVersion is "group/version", or "version" for the core group.
func (s Subresource) APIVersion() string { return apiVersion(s.Group, s.Version) }

// ResourceInfo describes one resource as the apiserver serves it and as
// discovery advertises it.
type ResourceInfo struct {
	Resource     string // plural, the URL segment: "deployments"
	Singular     string
	Kind         string
	ListKind     string
	Group        string // "" for core
	Version      string
	Namespaced   bool
	ShortNames   []string
	Verbs        []string
	Categories   []string
	Subresources []Subresource
}

// APIVersion is "group/version", or "version" for the core group.
func (r ResourceInfo) APIVersion() string { return apiVersion(r.Group, r.Version) }

// GroupResource names the resource for error messages.
func (r ResourceInfo) GroupResource() GroupResource {
	return GroupResource{Group: r.Group, Resource: r.Resource}
}

// GroupKind names the kind for error messages.
func (r ResourceInfo) GroupKind() GroupKind { return GroupKind{Group: r.Group, Kind: r.Kind} }

// Subresource looks up a subresource by name.
func (r ResourceInfo) Subresource(name string) (Subresource, bool) {
	for _, s := range r.Subresources {
		if s.Name == name {
			return s.clone(), true
		}
	}
	return Subresource{}, false
}

func (s Subresource) clone() Subresource {
	s.Verbs = slices.Clone(s.Verbs)
	return s
}

func (r ResourceInfo) clone() ResourceInfo {
	r.ShortNames = slices.Clone(r.ShortNames)
	r.Verbs = slices.Clone(r.Verbs)
	r.Categories = slices.Clone(r.Categories)
	subs := make([]Subresource, len(r.Subresources))
	for i, s := range r.Subresources {
		subs[i] = s.clone()
	}
	r.Subresources = subs
	return r
}

func apiVersion(group, version string) string {
	if group == "" {
		return version
	}
	return group + "/" + version
}

var (
	standardVerbs = []string{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"}
	statusVerbs   = []string{"get", "patch", "update"}
)

func statusOf(kind, group string) Subresource {
	return Subresource{Name: "status", Kind: kind, Group: group, Version: "v1", Verbs: statusVerbs}
}

func scaleOf() Subresource {
	return Subresource{Name: "scale", Kind: "Scale", Group: "autoscaling", Version: "v1", Verbs: statusVerbs}
}

// entry ties a ResourceInfo to its Go types.
type entry struct {
	info    ResourceInfo
	newObj  func() Object
	newList func() ListObject // nil for create-only resources (bindings)
}

var table = []entry{
	{ResourceInfo{Resource: "deployments", Singular: "deployment", Kind: "Deployment", ListKind: "DeploymentList",
		Group: "apps", Version: "v1", Namespaced: true, ShortNames: []string{"deploy"}, Verbs: standardVerbs,
		Categories: []string{"all"}, Subresources: []Subresource{statusOf("Deployment", "apps"), scaleOf()}},
		func() Object { return &Deployment{} }, func() ListObject { return &DeploymentList{} }},
	{ResourceInfo{Resource: "replicasets", Singular: "replicaset", Kind: "ReplicaSet", ListKind: "ReplicaSetList",
		Group: "apps", Version: "v1", Namespaced: true, ShortNames: []string{"rs"}, Verbs: standardVerbs,
		Categories: []string{"all"}, Subresources: []Subresource{statusOf("ReplicaSet", "apps"), scaleOf()}},
		func() Object { return &ReplicaSet{} }, func() ListObject { return &ReplicaSetList{} }},
	{ResourceInfo{Resource: "pods", Singular: "pod", Kind: "Pod", ListKind: "PodList",
		Version: "v1", Namespaced: true, ShortNames: []string{"po"}, Verbs: standardVerbs,
		Categories: []string{"all"}, Subresources: []Subresource{statusOf("Pod", ""),
			{Name: "binding", Kind: "Binding", Version: "v1", Verbs: []string{"create"}},
			{Name: "log", Kind: "Pod", Version: "v1", Verbs: []string{"get"}}}},
		func() Object { return &Pod{} }, func() ListObject { return &PodList{} }},
	{ResourceInfo{Resource: "nodes", Singular: "node", Kind: "Node", ListKind: "NodeList",
		Version: "v1", ShortNames: []string{"no"}, Verbs: standardVerbs,
		Subresources: []Subresource{statusOf("Node", "")}},
		func() Object { return &Node{} }, func() ListObject { return &NodeList{} }},
	{ResourceInfo{Resource: "services", Singular: "service", Kind: "Service", ListKind: "ServiceList",
		Version: "v1", Namespaced: true, ShortNames: []string{"svc"}, Verbs: standardVerbs,
		Categories: []string{"all"}, Subresources: []Subresource{statusOf("Service", "")}},
		func() Object { return &Service{} }, func() ListObject { return &ServiceList{} }},
	{ResourceInfo{Resource: "endpoints", Singular: "endpoints", Kind: "Endpoints", ListKind: "EndpointsList",
		Version: "v1", Namespaced: true, ShortNames: []string{"ep"}, Verbs: standardVerbs},
		func() Object { return &Endpoints{} }, func() ListObject { return &EndpointsList{} }},
	{ResourceInfo{Resource: "namespaces", Singular: "namespace", Kind: "Namespace", ListKind: "NamespaceList",
		Version: "v1", ShortNames: []string{"ns"}, Verbs: []string{"create", "delete", "get", "list", "patch", "update", "watch"},
		Subresources: []Subresource{statusOf("Namespace", ""),
			{Name: "finalize", Kind: "Namespace", Version: "v1", Verbs: []string{"update"}}}},
		func() Object { return &Namespace{} }, func() ListObject { return &NamespaceList{} }},
	{ResourceInfo{Resource: "events", Singular: "event", Kind: "Event", ListKind: "EventList",
		Version: "v1", Namespaced: true, ShortNames: []string{"ev"}, Verbs: standardVerbs},
		func() Object { return &Event{} }, func() ListObject { return &EventList{} }},
	{ResourceInfo{Resource: "bindings", Singular: "binding", Kind: "Binding",
		Version: "v1", Namespaced: true, Verbs: []string{"create"}},
		func() Object { return &Binding{} }, nil},
}

// kindMeta is what Marshal and Validate need to know about a Go type.
type kindMeta struct {
	kind, group, version string
	namespaced           bool
}

func (k kindMeta) typeMeta() TypeMeta {
	return TypeMeta{Kind: k.kind, APIVersion: apiVersion(k.group, k.version)}
}

var (
	byResource = map[string]*entry{}
	byKind     = map[string]*entry{}
	byListKind = map[string]*entry{}
	byShort    = map[string]*entry{}
	byType     = map[reflect.Type]kindMeta{}
)

func init() {
	table = slices.Concat(table, storedEntries, workloadEntries, ownedEntries, discoveryEntries, crdEntries)
	for i := range table {
		e := &table[i]
		r := e.info
		byResource[r.Resource] = e
		byKind[r.Kind] = e
		for _, s := range r.ShortNames {
			byShort[s] = e
		}
		byType[reflect.TypeOf(e.newObj())] = kindMeta{r.Kind, r.Group, r.Version, r.Namespaced}
		if e.newList != nil {
			byListKind[r.ListKind] = e
			byType[reflect.TypeOf(e.newList())] = kindMeta{r.ListKind, r.Group, r.Version, false}
		}
	}
	// Scale lives only as a subresource, so it has no table row.
	byType[reflect.TypeOf(&Scale{})] = kindMeta{"Scale", "autoscaling", "v1", true}
	byType[reflect.TypeOf(&Status{})] = kindMeta{"Status", "", "v1", false}
	byType[reflect.TypeOf(&DeleteOptions{})] = kindMeta{"DeleteOptions", "", "v1", false}
}

// Resources lists every resource, in a stable order.
func Resources() []ResourceInfo {
	out := make([]ResourceInfo, len(table), len(table)+len(customSnapshot()))
	for i, e := range table {
		out[i] = e.info.clone()
	}
	for _, e := range sortedCustoms() {
		out = append(out, e.res.Info.clone())
	}
	return out
}

// LookupResource finds a resource by its plural name ("deployments").
func LookupResource(resource string) (ResourceInfo, bool) {
	if e, ok := byResource[resource]; ok {
		return e.info.clone(), true
	}
	if e, ok := customSnapshot()[resource]; ok {
		return e.res.Info.clone(), true
	}
	return ResourceInfo{}, false
}

// LookupKind finds a resource by its kind ("Deployment"). Kinds are unique
// across groups in converge's table.
func LookupKind(kind string) (ResourceInfo, bool) {
	if e, ok := byKind[kind]; ok {
		return e.info.clone(), true
	}
	if e, ok := customByKind(kind); ok {
		return e.res.Info.clone(), true
	}
	return ResourceInfo{}, false
}

// LookupShortName finds a resource by a short name ("deploy").
func LookupShortName(short string) (ResourceInfo, bool) {
	if e, ok := byShort[short]; ok {
		return e.info.clone(), true
	}
	if e, ok := customByShortName(short); ok {
		return e.res.Info.clone(), true
	}
	return ResourceInfo{}, false
}

// ResolveResource accepts whatever a user types after `get`: plural,
// singular, short name or kind, in any case, with an optional ".group"
// suffix ("deployments.apps").
func ResolveResource(name string) (ResourceInfo, bool) {
	n := strings.ToLower(name)
	group := ""
	if i := strings.IndexByte(n, '.'); i >= 0 {
		n, group = n[:i], n[i+1:]
	}
	for _, e := range table {
		r := e.info
		if group != "" && group != r.Group {
			continue
		}
		if n == r.Resource || n == r.Singular || n == strings.ToLower(r.Kind) || slices.Contains(r.ShortNames, n) {
			return r.clone(), true
		}
	}
	return resolveCustom(n, group)
}

// New returns an empty object of the resource, with its TypeMeta set.
func New(resource string) (Object, error) {
	e, ok := byResource[resource]
	if !ok {
		if c, ok := customSnapshot()[resource]; ok {
			return &CustomObject{TypeMeta: TypeMeta{Kind: c.res.Info.Kind, APIVersion: c.res.Info.APIVersion()}}, nil
		}
		return nil, fmt.Errorf("%w: %q", ErrUnknownResource, resource)
	}
	o := e.newObj()
	*TypeOf(o) = TypeMeta{Kind: e.info.Kind, APIVersion: e.info.APIVersion()}
	return o, nil
}

// NewList returns an empty list of the resource, with its TypeMeta set.
func NewList(resource string) (ListObject, error) {
	e, ok := byResource[resource]
	if c, custom := customSnapshot()[resource]; !ok && custom {
		return &CustomObjectList{TypeMeta: TypeMeta{Kind: c.res.Info.ListKind, APIVersion: c.res.Info.APIVersion()}}, nil
	}
	if !ok || e.newList == nil {
		return nil, fmt.Errorf("%w: %q has no list", ErrUnknownResource, resource)
	}
	l := e.newList()
	*TypeOf(l) = TypeMeta{Kind: e.info.ListKind, APIVersion: e.info.APIVersion()}
	return l, nil
}

// newSubresourceBody returns the empty body of "resource/subresource".
func newSubresourceBody(resource, sub string) (Object, Subresource, error) {
	info, ok := LookupResource(resource)
	if !ok {
		return nil, Subresource{}, fmt.Errorf("%w: %q", ErrUnknownResource, resource)
	}
	s, ok := info.Subresource(sub)
	if !ok {
		return nil, Subresource{}, fmt.Errorf("%w: %q has no subresource %q", ErrUnknownResource, resource, sub)
	}
	var o Object
	switch s.Kind {
	case "Scale":
		o = &Scale{}
	case "Binding":
		o = &Binding{}
	default:
		var err error
		if o, err = New(resource); err != nil {
			return nil, Subresource{}, err
		}
	}
	*TypeOf(o) = TypeMeta{Kind: s.Kind, APIVersion: s.APIVersion()}
	return o, s, nil
}

// ResourceFor returns the resource whose kind obj is (not for Scale, which
// is only a subresource body).
func ResourceFor(obj Object) (ResourceInfo, bool) {
	if c, ok := obj.(*CustomObject); ok && c != nil {
		return customFor(c.TypeMeta)
	}
	km, ok := metaOf(obj)
	if !ok {
		return ResourceInfo{}, false
	}
	e, ok := byKind[km.kind]
	if !ok {
		return ResourceInfo{}, false
	}
	return e.info.clone(), true
}

// TypeMetaFor returns the kind and apiVersion of a Go value of any
// converge kind (objects, lists, Scale, Status, DeleteOptions).
func TypeMetaFor(v any) (TypeMeta, bool) {
	switch c := v.(type) {
	case *CustomObject:
		return c.TypeMeta, c != nil
	case *CustomObjectList:
		return c.TypeMeta, c != nil
	}
	km, ok := byType[reflect.TypeOf(v)]
	if !ok {
		return TypeMeta{}, false
	}
	return km.typeMeta(), true
}

func metaOf(v any) (kindMeta, bool) {
	if c, ok := v.(*CustomObject); ok && c != nil {
		info, ok := customFor(c.TypeMeta)
		return kindMeta{info.Kind, info.Group, info.Version, info.Namespaced}, ok
	}
	km, ok := byType[reflect.TypeOf(v)]
	return km, ok
}

// Version is the Kubernetes version converge's apiserver reports, and its
// kubelets too: the API it serves is v1.32's.
const Version = "v1.32.0-converge"
