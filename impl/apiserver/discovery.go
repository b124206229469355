package apiserver

import (
	"net/http"
	"strings"

	"github.com/converge-dev/converge/impl/api"
)

// Discovery documents, as kubectl reads them. They are served as plain
// application/json, so a client asking for aggregated discovery
// (apidiscovery.k8s.io/v2) falls back to the legacy documents.

type apiVersions struct {
	Kind                       string              `json:"kind"`
	Versions                   []string            `json:"versions"`
	ServerAddressByClientCIDRs []serverAddressCIDR `json:"serverAddressByClientCIDRs"`
}

type serverAddressCIDR struct {
	ClientCIDR    string `json:"clientCIDR"`
	ServerAddress string `json:"serverAddress"`
}

type groupVersion struct {
	GroupVersion string `json:"groupVersion"`
	Version      string `json:"version"`
}

type apiGroup struct {
	Name             string         `json:"name"`
	Versions         []groupVersion `json:"versions"`
	PreferredVersion groupVersion   `json:"preferredVersion"`
}

type apiGroupList struct {
	Kind       string     `json:"kind"`
	APIVersion string     `json:"apiVersion"`
	Groups     []apiGroup `json:"groups"`
}

type apiResource struct {
	Name         string   `json:"name"`
	SingularName string   `json:"singularName"`
	Namespaced   bool     `json:"namespaced"`
	Group        string   `json:"group,omitempty"`
	Version      string   `json:"version,omitempty"`
	Kind         string   `json:"kind"`
	Verbs        []string `json:"verbs"`
	ShortNames   []string `json:"shortNames,omitempty"`
	Categories   []string `json:"categories,omitempty"`
}

type apiResourceList struct {
	Kind         string        `json:"kind"`
	APIVersion   string        `json:"apiVersion"`
	GroupVersion string        `json:"groupVersion"`
	Resources    []apiResource `json:"resources"`
}

// groupOf is the apiGroup document of a named group.
func groupOf(name string) apiGroup {
	gv := groupVersion{GroupVersion: name + "/v1", Version: "v1"}
	return apiGroup{Name: name, Versions: []groupVersion{gv}, PreferredVersion: gv}
}

// resourceList is the APIResourceList of one group version: each resource
// then each of its subresources, as "deployments/scale".
func resourceList(group, version string) apiResourceList {
	gv := version
	if group != "" {
		gv = group + "/" + version
	}
	out := apiResourceList{Kind: "APIResourceList", APIVersion: "v1", GroupVersion: gv, Resources: []apiResource{}}
	for _, r := range api.Resources() {
		if r.Group != group || r.Version != version {
			continue
		}
		out.Resources = append(out.Resources, apiResource{Name: r.Resource, SingularName: r.Singular,
			Namespaced: r.Namespaced, Kind: r.Kind, Verbs: r.Verbs, ShortNames: r.ShortNames, Categories: r.Categories})
		for _, sub := range r.Subresources {
			ar := apiResource{Name: r.Resource + "/" + sub.Name, Namespaced: r.Namespaced, Kind: sub.Kind, Verbs: sub.Verbs}
			if sub.Group != r.Group || sub.Version != r.Version {
				ar.Group, ar.Version = sub.Group, sub.Version
			}
			out.Resources = append(out.Resources, ar)
		}
	}
	return out
}

// coordinationGroup serves Leases, which leader election holds.
const coordinationGroup = "coordination.k8s.io"

// batchGroup serves Jobs, stored only.
const batchGroup = "batch"

// discoveryGroup serves EndpointSlices.
const discoveryGroup = api.DiscoveryGroup

// autoscaling/v1 is served (Scale is its kind) but not listed in /apis:
// it has no top-level resources, and discovery clients fail on a group
// version with an empty resource list.

// serveNonResource answers discovery and version paths;
// false means path is a resource path.
func (s *Server) serveNonResource(w http.ResponseWriter, r *http.Request, path string) bool {
	var body any
	switch strings.TrimSuffix(path, "/") {
	case "/version":
		body = s.version
	case "/api":
		body = apiVersions{Kind: "APIVersions", Versions: []string{"v1"},
			ServerAddressByClientCIDRs: []serverAddressCIDR{{ClientCIDR: "0.0.0.0/0", ServerAddress: r.Host}}}
	case "/apis":
		body = apiGroupList{Kind: "APIGroupList", APIVersion: "v1",
			Groups: []apiGroup{groupOf("apps"), groupOf(eventsGroup), groupOf("authorization.k8s.io"), groupOf(batchGroup),
				groupOf(coordinationGroup), groupOf(discoveryGroup)}}
	case "/apis/apps":
		g := groupOf("apps")
		body = struct {
			Kind       string `json:"kind"`
			APIVersion string `json:"apiVersion"`
			apiGroup
		}{"APIGroup", "v1", g}
	case "/apis/autoscaling":
		body = struct {
			Kind       string `json:"kind"`
			APIVersion string `json:"apiVersion"`
			apiGroup
		}{"APIGroup", "v1", groupOf("autoscaling")}
	case "/api/v1":
		body = resourceList("", "v1")
	case "/apis/apps/v1":
		body = resourceList("apps", "v1")
	case "/apis/autoscaling/v1":
		body = resourceList("autoscaling", "v1")
	case "/apis/" + eventsGroup:
		body = struct {
			Kind       string `json:"kind"`
			APIVersion string `json:"apiVersion"`
			apiGroup
		}{"APIGroup", "v1", groupOf(eventsGroup)}
	case "/apis/" + eventsV1:
		info := eventsV1Info()
		body = apiResourceList{Kind: "APIResourceList", APIVersion: "v1", GroupVersion: eventsV1,
			Resources: []apiResource{{Name: info.Resource, SingularName: info.Singular, Namespaced: true,
				Kind: info.Kind, Verbs: info.Verbs, ShortNames: info.ShortNames}}}
	case "/apis/" + batchGroup:
		body = struct {
			Kind       string `json:"kind"`
			APIVersion string `json:"apiVersion"`
			apiGroup
		}{"APIGroup", "v1", groupOf(batchGroup)}
	case "/apis/" + batchGroup + "/v1":
		body = resourceList(batchGroup, "v1")
	case "/apis/" + coordinationGroup:
		body = struct {
			Kind       string `json:"kind"`
			APIVersion string `json:"apiVersion"`
			apiGroup
		}{"APIGroup", "v1", groupOf(coordinationGroup)}
	case "/apis/" + coordinationGroup + "/v1":
		body = resourceList(coordinationGroup, "v1")
	case "/apis/" + discoveryGroup:
		body = struct {
			Kind       string `json:"kind"`
			APIVersion string `json:"apiVersion"`
			apiGroup
		}{"APIGroup", "v1", groupOf(discoveryGroup)}
	case "/apis/" + discoveryGroup + "/v1":
		body = resourceList(discoveryGroup, "v1")
	default:
		var ok bool
		if body, ok = authorizationDiscovery(strings.TrimSuffix(path, "/")); !ok {
			return false
		}
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		writeError(w, api.NewMethodNotSupported(api.GroupResource{}, r.Method))
		return true
	}
	writeJSON(w, http.StatusOK, body)
	return true
}
