package apiserver

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/converge-dev/converge/impl/api"
)

// route is one parsed resource URL. Name is "" for a collection, and
// Namespace is "" for cluster-scoped resources and all-namespaces lists.
type route struct {
	Resource    api.ResourceInfo
	Namespace   string
	Name        string
	Subresource string
}

// gr is the route's group and resource, for Status messages.
func (rt route) gr() api.GroupResource { return rt.Resource.GroupResource() }

// authzResource is what authorization sees: "pods" or "pods/status".
func (rt route) authzResource() string {
	if rt.Subresource != "" {
		return rt.Resource.Resource + "/" + rt.Subresource
	}
	return rt.Resource.Resource
}

// servedGroupVersions are the group versions of the built-in kinds.
var servedGroupVersions = []string{"v1", "apps/v1", "autoscaling/v1", "autoscaling/v2", "batch/v1", "coordination.k8s.io/v1", discoveryGroup + "/v1", eventsV1,
	api.NetworkingGroup + "/v1", api.PolicyGroup + "/v1", api.RBACGroup + "/v1", api.APIExtensionsGroup + "/v1"}

// parseRoute reads /api/v1/... or /apis/{group}/{version}/... into a route;
// any other path, or an unknown resource or subresource, is 404 NotFound.
func parseRoute(path string) (route, error) {
	segs := splitPath(path)
	var group, version string
	switch {
	case len(segs) >= 3 && segs[0] == "api":
		version, segs = segs[1], segs[2:]
	case len(segs) >= 4 && segs[0] == "apis":
		group, version, segs = segs[1], segs[2], segs[3:]
	default:
		return route{}, notFoundPath(path)
	}
	var rt route
	// /namespaces/{ns}/{resource}... unless it is the namespace itself or
	// one of its subresources.
	if segs[0] == "namespaces" && len(segs) >= 3 {
		if _, isSub := mustLookup("namespaces").Subresource(segs[2]); !isSub || len(segs) > 3 || group != "" {
			rt.Namespace, segs = segs[1], segs[2:]
		}
	}
	if len(segs) > 3 {
		return route{}, notFoundPath(path)
	}
	info, ok := api.LookupResource(segs[0])
	if c, custom := api.LookupCustom(segs[0]); custom && info.Group == group {
		// A custom resource is served at each of its served versions.
		if !c.ServesVersion(version) {
			return route{}, notFoundPath(path)
		}
		info = atVersion(info, version)
	} else if !ok || info.Group != group || info.Version != version {
		return route{}, notFoundPath(path)
	}
	rt.Resource = info
	if len(segs) > 1 {
		rt.Name = segs[1]
	}
	if len(segs) > 2 {
		rt.Subresource = segs[2]
		if _, ok := info.Subresource(segs[2]); !ok {
			if _, custom := api.LookupCustom(info.Resource); custom {
				// Upstream's custom resource handler names the object.
				return route{}, api.NewNotFound(info.GroupResource(), rt.Name)
			}
			if info.Resource == "pods" && streamSubresources[segs[2]] {
				e := notFoundPath(path)
				e.Status.Message = fmt.Sprintf("converge does not serve pods/%s: its kubelets run no streams (exec, attach, port-forward)", segs[2])
				return route{}, e
			}
			return route{}, notFoundPath(path)
		}
	}
	if rt.Namespace != "" && !info.Namespaced {
		return route{}, api.NewNotFound(info.GroupResource(), rt.Name)
	}
	if info.Namespaced && rt.Namespace == "" && rt.Name != "" {
		// A named namespaced object needs its namespace in the URL.
		return route{}, notFoundPath(path)
	}
	for _, s := range []string{rt.Namespace, rt.Name} {
		if s == "." || s == ".." {
			return route{}, api.NewBadRequest("a resource name may not be '.' or '..'")
		}
	}
	return rt, nil
}

func mustLookup(resource string) api.ResourceInfo {
	info, _ := api.LookupResource(resource)
	return info
}

func splitPath(path string) []string {
	var out []string
	for _, s := range strings.Split(path, "/") {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

// streamSubresources are the pod subresources a kubelet serves with a
// stream of its own, which converge's kubelets do not have.
var streamSubresources = map[string]bool{"exec": true, "attach": true, "portforward": true, "proxy": true}

// notFoundPath is Kubernetes' 404 for a path that names no resource; the
// message does not echo the path, as Kubernetes' does not.
func notFoundPath(string) *api.StatusError {
	e := api.NewNotFound(api.GroupResource{}, "")
	e.Status.Message = "the server could not find the requested resource"
	e.Status.Details = &api.StatusDetails{}
	return e
}

// verbOf is the Kubernetes authorization verb of a request on rt.
func verbOf(r *http.Request, rt route) string {
	collection := rt.Name == ""
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		switch {
		case isWatch(r):
			return "watch"
		case collection:
			return "list"
		default:
			return "get"
		}
	case http.MethodPost:
		return "create"
	case http.MethodPut:
		return "update"
	case http.MethodPatch:
		return "patch"
	case http.MethodDelete:
		if collection {
			return "deletecollection"
		}
		return "delete"
	}
	return strings.ToLower(r.Method)
}

func isWatch(r *http.Request) bool {
	w := r.URL.Query().Get("watch")
	return w == "true" || w == "1"
}
