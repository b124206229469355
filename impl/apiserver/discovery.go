package apiserver

import (
	"net/http"
	"slices"
	"sort"
	"strings"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/version"

	"github.com/converge-dev/converge/impl/api"
)

// Discovery documents are meta/v1's and apidiscovery.k8s.io/v2's types.
// /api and /apis answer aggregated discovery (every group, version and
// resource in one document) to a client that asks for it, as kubectl and
// client-go do, and the legacy documents otherwise.

// coordinationGroup serves Leases, which leader election holds.
const coordinationGroup = "coordination.k8s.io"

// batchGroup serves Jobs, stored only.
const batchGroup = "batch"

// discoveryGroup serves EndpointSlices.
const discoveryGroup = api.DiscoveryGroup

// authorizationGroup serves SelfSubjectAccessReviews and
// SelfSubjectRulesReviews.
const authorizationGroup = "authorization.k8s.io"

// listedGroups are the groups /apis lists, in its order, each with the
// versions its resources have (builtinVersions): autoscaling lists v2,
// HorizontalPodAutoscalers' version. Its v1 is served (Scale is its kind)
// but not listed: it has no top-level resources, and discovery clients
// fail on a group version with an empty resource list.
var listedGroups = []string{"apps", eventsGroup, authenticationGroup, api.APIExtensionsGroup, authorizationGroup, "autoscaling", batchGroup,
	coordinationGroup, discoveryGroup, api.NetworkingGroup, api.PolicyGroup, api.RBACGroup}

// aggregatedType is the media type of aggregated discovery, asked for in
// Accept and answered in Content-Type.
const aggregatedType = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"

// builtinVersions are the versions of a built-in group's resources,
// newest first; v1 for a group with none in the table (events.k8s.io,
// authorization.k8s.io, authentication.k8s.io).
func builtinVersions(group string) []string {
	var out []string
	for _, r := range api.Resources() {
		if _, custom := api.LookupCustom(r.Resource); !custom && r.Group == group && !slices.Contains(out, r.Version) {
			out = append(out, r.Version)
		}
	}
	if len(out) == 0 {
		return []string{"v1"}
	}
	sort.Slice(out, func(i, j int) bool { return version.CompareKubeAwareVersionStrings(out[i], out[j]) > 0 })
	return out
}

func apiVersionOf(group, version string) string {
	if group == "" {
		return version
	}
	return group + "/" + version
}

// groupOf is the APIGroup document of a named group.
func groupOf(name string) metav1.APIGroup {
	g := metav1.APIGroup{Name: name}
	for _, v := range groupVersions(name) {
		g.Versions = append(g.Versions, metav1.GroupVersionForDiscovery{GroupVersion: apiVersionOf(name, v), Version: v})
	}
	if len(g.Versions) > 0 {
		g.PreferredVersion = g.Versions[0]
	}
	return g
}

// resourcesOf lists the resources of one group version, each with its
// subresources.
func resourcesOf(group, version string) []api.ResourceInfo {
	switch group {
	case eventsGroup:
		return []api.ResourceInfo{eventsV1Info()}
	case authorizationGroup:
		return []api.ResourceInfo{{Resource: "selfsubjectaccessreviews", Singular: "selfsubjectaccessreview",
			Kind: "SelfSubjectAccessReview", Group: authorizationGroup, Version: "v1", Verbs: []string{"create"}},
			{Resource: "selfsubjectrulesreviews", Singular: "selfsubjectrulesreview",
				Kind: "SelfSubjectRulesReview", Group: authorizationGroup, Version: "v1", Verbs: []string{"create"}}}
	case authenticationGroup:
		return []api.ResourceInfo{{Resource: "selfsubjectreviews", Singular: "selfsubjectreview",
			Kind: "SelfSubjectReview", Group: authenticationGroup, Version: "v1", Verbs: []string{"create"}}}
	}
	var out []api.ResourceInfo
	for _, r := range api.Resources() {
		if c, custom := api.LookupCustom(r.Resource); custom && r.Group == group && c.ServesVersion(version) {
			out = append(out, atVersion(r, version))
		} else if !custom && r.Group == group && r.Version == version {
			out = append(out, r)
		}
	}
	return out
}

// resourceList is the APIResourceList of one group version: each resource
// then each of its subresources, as "deployments/scale".
func resourceList(group, version string) metav1.APIResourceList {
	out := metav1.APIResourceList{TypeMeta: metav1.TypeMeta{Kind: "APIResourceList", APIVersion: "v1"},
		GroupVersion: apiVersionOf(group, version), APIResources: []metav1.APIResource{}}
	for _, r := range resourcesOf(group, version) {
		out.APIResources = append(out.APIResources, metav1.APIResource{Name: r.Resource, SingularName: r.Singular,
			Namespaced: r.Namespaced, Kind: r.Kind, Verbs: r.Verbs, ShortNames: r.ShortNames, Categories: r.Categories})
		for _, sub := range r.Subresources {
			ar := metav1.APIResource{Name: r.Resource + "/" + sub.Name, Namespaced: r.Namespaced, Kind: sub.Kind, Verbs: sub.Verbs}
			if sub.Group != r.Group || sub.Version != r.Version {
				ar.Group, ar.Version = sub.Group, sub.Version
			}
			out.APIResources = append(out.APIResources, ar)
		}
	}
	return out
}

// aggregated is the aggregated discovery document of groups (the core
// group is "").
func aggregated(groups ...string) apidiscoveryv2.APIGroupDiscoveryList {
	out := apidiscoveryv2.APIGroupDiscoveryList{TypeMeta: metav1.TypeMeta{Kind: "APIGroupDiscoveryList", APIVersion: "apidiscovery.k8s.io/v2"},
		Items: []apidiscoveryv2.APIGroupDiscovery{}}
	for _, g := range groups {
		gd := apidiscoveryv2.APIGroupDiscovery{ObjectMeta: metav1.ObjectMeta{Name: g}}
		for _, version := range groupVersions(g) {
			gd.Versions = append(gd.Versions, versionDiscovery(g, version))
		}
		out.Items = append(out.Items, gd)
	}
	return out
}

// versionDiscovery is one group version's part of aggregated discovery.
func versionDiscovery(g, version string) apidiscoveryv2.APIVersionDiscovery {
	v := apidiscoveryv2.APIVersionDiscovery{Version: version, Freshness: apidiscoveryv2.DiscoveryFreshnessCurrent,
		Resources: []apidiscoveryv2.APIResourceDiscovery{}}
	for _, r := range resourcesOf(g, version) {
		rd := apidiscoveryv2.APIResourceDiscovery{Resource: r.Resource, SingularResource: r.Singular,
			ResponseKind: &metav1.GroupVersionKind{Group: r.Group, Version: r.Version, Kind: r.Kind},
			Scope:        apidiscoveryv2.ScopeCluster, Verbs: r.Verbs, ShortNames: r.ShortNames, Categories: r.Categories}
		if r.Namespaced {
			rd.Scope = apidiscoveryv2.ScopeNamespace
		}
		for _, sub := range r.Subresources {
			rd.Subresources = append(rd.Subresources, apidiscoveryv2.APISubresourceDiscovery{Subresource: sub.Name,
				ResponseKind: &metav1.GroupVersionKind{Group: sub.Group, Version: sub.Version, Kind: sub.Kind}, Verbs: sub.Verbs})
		}
		v.Resources = append(v.Resources, rd)
	}
	return v
}

// wantsAggregated: the first Accept clause converge serves asks for
// aggregated discovery v2 (client-go lists it first, then plain JSON).
func wantsAggregated(r *http.Request) bool {
	for _, clause := range strings.Split(r.Header.Get("Accept"), ",") {
		params := strings.Split(clause, ";")
		if strings.ToLower(strings.TrimSpace(params[0])) != "application/json" {
			continue
		}
		got := map[string]string{}
		for _, p := range params[1:] {
			k, v, _ := strings.Cut(p, "=")
			got[strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
		switch {
		case got["as"] == "":
			return false
		case got["as"] == "APIGroupDiscoveryList" && got["g"] == "apidiscovery.k8s.io" && got["v"] == "v2":
			return true
		}
	}
	return false
}

// serveNonResource answers discovery and version paths;
// false means path is a resource path.
func (s *Server) serveNonResource(w http.ResponseWriter, r *http.Request, path string) bool {
	path = strings.TrimSuffix(path, "/")
	var body any
	switch {
	case path == "/version":
		body = s.version
	case path == "/api" && wantsAggregated(r):
		body = aggregated("")
	case path == "/api":
		body = metav1.APIVersions{TypeMeta: metav1.TypeMeta{Kind: "APIVersions"}, Versions: []string{"v1"},
			ServerAddressByClientCIDRs: []metav1.ServerAddressByClientCIDR{{ClientCIDR: "0.0.0.0/0", ServerAddress: r.Host}}}
	case path == "/apis" && wantsAggregated(r):
		body = aggregated(allListedGroups()...)
	case path == "/apis":
		l := metav1.APIGroupList{TypeMeta: metav1.TypeMeta{Kind: "APIGroupList", APIVersion: "v1"}}
		for _, g := range allListedGroups() {
			l.Groups = append(l.Groups, groupOf(g))
		}
		body = l
	case path == "/api/v1":
		body = resourceList("", "v1")
	default:
		group, version, _ := strings.Cut(strings.TrimPrefix(path, "/apis/"), "/")
		if !strings.HasPrefix(path, "/apis/") || (version != "" && !servesGroupVersion(group, version)) ||
			len(groupVersions(group)) == 0 {
			return false
		}
		if version == "" {
			g := groupOf(group)
			g.TypeMeta = metav1.TypeMeta{Kind: "APIGroup", APIVersion: "v1"}
			body = g
		} else {
			body = resourceList(group, version)
		}
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		writeError(w, api.NewMethodNotSupported(api.GroupResource{}, r.Method))
		return true
	}
	if _, ok := body.(apidiscoveryv2.APIGroupDiscoveryList); ok {
		b, err := api.Marshal(body)
		if err != nil {
			writeError(w, api.NewInternalError(err))
			return true
		}
		w.Header().Set("Vary", "Accept")
		writeBodyAs(w, aggregatedType, http.StatusOK, append(b, '\n'))
		return true
	}
	writeJSON(w, http.StatusOK, body)
	return true
}
