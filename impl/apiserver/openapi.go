package apiserver

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"sort"
	"strings"
	"sync"

	eventsv1 "k8s.io/api/events/v1"

	"github.com/converge-dev/converge/impl/api"
)

// openAPIDoc is one served group version: its URL path under /openapi/v3
// ("api/v1", "apis/apps/v1") and its document.
type openAPIDoc struct {
	path string
	body []byte
	hash string
}

var (
	openAPIOnce sync.Once
	openAPIDocs map[string]openAPIDoc
	openAPIErr  error
)

// openAPIDocuments builds every document once; they depend only on
// impl/api's types, so they never change while the process runs.
func openAPIDocuments() (map[string]openAPIDoc, error) {
	openAPIOnce.Do(func() {
		docs := map[string]openAPIDoc{}
		for _, gv := range servedGroupVersions {
			b, err := buildOpenAPIDocument(gv)
			if err != nil {
				openAPIErr = err
				return
			}
			sum := sha256.Sum256(b)
			p := gvPath(gv)
			docs[p] = openAPIDoc{path: p, body: b, hash: strings.ToUpper(hex.EncodeToString(sum[:]))}
		}
		openAPIDocs = docs
	})
	return openAPIDocs, openAPIErr
}

// gvPath is "api/v1" for the core group, "apis/<group>/<version>" otherwise.
func gvPath(gv string) string {
	if !strings.Contains(gv, "/") {
		return "api/" + gv
	}
	return "apis/" + gv
}

// openAPIDocument is the OpenAPI 3.0 document of a group version ("v1",
// "apps/v1", "autoscaling/v1").
func openAPIDocument(groupVersion string) ([]byte, error) {
	docs, err := openAPIDocuments()
	if err != nil {
		return nil, err
	}
	d, ok := docs[gvPath(groupVersion)]
	if !ok {
		return nil, fmt.Errorf("apiserver: no OpenAPI document for %q", groupVersion)
	}
	return d.body, nil
}

// openAPIHandler serves GET /openapi/v3 (the index kubectl reads first)
// and GET /openapi/v3/<group version path>.
func openAPIHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			writeError(w, api.NewMethodNotSupported(api.GroupResource{Resource: "openapi"}, strings.ToLower(r.Method)))
			return
		}
		if strings.TrimSuffix(r.URL.Path, "/") == "/openapi/v2" {
			serveOpenAPIV2(w, r)
			return
		}
		builtin, err := openAPIDocuments()
		if err != nil {
			writeError(w, api.NewInternalError(err))
			return
		}
		docs := customOpenAPIDocs()
		for p, d := range builtin {
			docs[p] = d
		}
		rest := strings.Trim(strings.TrimPrefix(r.URL.Path, "/openapi/v3"), "/")
		if rest == "" {
			paths := map[string]any{}
			for p, d := range docs {
				paths[p] = map[string]string{"serverRelativeURL": "/openapi/v3/" + p + "?hash=" + d.hash}
			}
			writeJSON(w, http.StatusOK, map[string]any{"paths": paths})
			return
		}
		d, ok := docs[rest]
		if !ok || !strings.HasPrefix(r.URL.Path, "/openapi/v3/") {
			writeError(w, notFoundPath(r.URL.Path))
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Etag", `"`+d.hash+`"`)
		if r.URL.Query().Get("hash") == d.hash {
			// Content-addressed: clients may cache it for good.
			w.Header().Set("Cache-Control", "public, immutable")
		} else {
			w.Header().Set("Cache-Control", "no-cache, private")
		}
		w.WriteHeader(http.StatusOK)
		if r.Method == http.MethodGet {
			_, _ = w.Write(d.body)
		}
	})
}

// openAPIKind is one top-level kind a document describes.
type openAPIKind struct {
	typ       reflect.Type
	gvks      []map[string]string
	resource  *api.ResourceInfo // nil for kinds with no paths of their own
	isList    bool
	subScales []api.ResourceInfo
}

func gvkExt(group, version, kind string) map[string]string {
	return map[string]string{"group": group, "version": version, "kind": kind}
}

// buildOpenAPIDocument reflects over impl/api's types for one group version.
func buildOpenAPIDocument(gv string) ([]byte, error) {
	group, version := "", gv
	if g, v, ok := strings.Cut(gv, "/"); ok {
		group, version = g, v
	}
	g := &schemaGen{components: map[string]map[string]any{}}
	paths := map[string]any{}
	addKind := func(obj any, gvks ...map[string]string) string {
		t := reflect.TypeOf(obj).Elem()
		g.schemaFor(t)
		name := componentName(t)
		list := make([]any, len(gvks))
		for i, x := range gvks {
			list[i] = x
		}
		g.components[name]["x-kubernetes-group-version-kind"] = list
		return name
	}
	scaleServed := false
	for _, info := range api.Resources() {
		if info.Group != group || info.Version != version {
			continue
		}
		obj, err := api.New(info.Resource)
		if err != nil {
			return nil, fmt.Errorf("apiserver: openapi: %w", err)
		}
		kindRef := addKind(obj, gvkExt(group, version, info.Kind))
		listRef := ""
		if l, err := api.NewList(info.Resource); err == nil {
			listRef = addKind(l, gvkExt(group, version, info.ListKind))
		}
		addResourcePaths(paths, info, kindRef, listRef)
		for _, sub := range info.Subresources {
			if sub.Kind == "Scale" {
				scaleServed = true
				addSubresourcePath(paths, info, sub, addKind(&api.Scale{}, gvkExt("autoscaling", "v1", "Scale")))
			} else if sub.Name == "status" {
				addSubresourcePath(paths, info, sub, kindRef)
			}
		}
	}
	if gv == eventsV1 {
		info := eventsV1Info()
		addResourcePaths(paths, info, addKind(&eventsv1.Event{}, gvkExt(eventsGroup, "v1", "Event")),
			addKind(&eventsv1.EventList{}, gvkExt(eventsGroup, "v1", "EventList")))
	}
	if gv == "autoscaling/v1" && !scaleServed {
		addKind(&api.Scale{}, gvkExt("autoscaling", "v1", "Scale"))
	}
	// Every group version answers with Status and accepts DeleteOptions.
	addKind(&api.Status{}, gvkExt("", "v1", "Status"))
	addKind(&api.DeleteOptions{}, gvkExt("", "v1", "DeleteOptions"), gvkExt("apps", "v1", "DeleteOptions"),
		gvkExt("autoscaling", "v1", "DeleteOptions"), gvkExt("autoscaling", "v2", "DeleteOptions"), gvkExt(batchGroup, "v1", "DeleteOptions"),
		gvkExt(coordinationGroup, "v1", "DeleteOptions"), gvkExt(discoveryGroup, "v1", "DeleteOptions"),
		gvkExt(eventsGroup, "v1", "DeleteOptions"), gvkExt(api.NetworkingGroup, "v1", "DeleteOptions"),
		gvkExt(api.PolicyGroup, "v1", "DeleteOptions"), gvkExt(api.RBACGroup, "v1", "DeleteOptions"))
	doc := map[string]any{
		"openapi":    "3.0.0",
		"info":       map[string]any{"title": "Kubernetes", "version": api.Version},
		"paths":      paths,
		"components": map[string]any{"schemas": g.components},
	}
	return json.Marshal(doc)
}

// queryParam is an inline OpenAPI query parameter.
func queryParam(name, typ string) map[string]any {
	return map[string]any{"name": name, "in": "query", "schema": map[string]any{"type": typ}, "uniqueItems": true}
}

// writeParams are the query parameters of every write; kubectl looks for
// fieldValidation on PATCH to learn that the server validates fields, and
// then leaves validation to it.
func writeParams() []any {
	return []any{queryParam("dryRun", "string"), queryParam("fieldManager", "string"),
		queryParam("fieldValidation", "string")}
}

func jsonBody(ref string) map[string]any {
	return map[string]any{"content": map[string]any{
		"application/json": map[string]any{"schema": refTo(ref)},
		"application/yaml": map[string]any{"schema": refTo(ref)},
	}, "required": true}
}

func okResponse(ref string) map[string]any {
	return map[string]any{"200": map[string]any{"description": "OK", "content": map[string]any{
		"application/json": map[string]any{"schema": refTo(ref)},
	}}}
}

func operation(id, action string, gvk map[string]string, ref string) map[string]any {
	return map[string]any{
		"operationId":                     id,
		"x-kubernetes-action":             action,
		"x-kubernetes-group-version-kind": gvk,
		"responses":                       okResponse(ref),
	}
}

func patchOperation(id string, gvk map[string]string, ref string) map[string]any {
	op := operation(id, "patch", gvk, ref)
	op["parameters"] = append(writeParams(), queryParam("force", "boolean"))
	schema := map[string]any{"schema": map[string]any{"type": "object"}}
	op["requestBody"] = map[string]any{"required": true, "content": map[string]any{
		jsonPatchType: schema, mergePatchType: schema, strategicPatchType: schema, applyPatchType: schema,
	}}
	return op
}

// resourceBase is the collection URL of info ("/apis/apps/v1/namespaces/{namespace}/deployments").
func resourceBase(info api.ResourceInfo) string {
	base := "/" + gvPath(info.APIVersion())
	if info.Namespaced {
		base += "/namespaces/{namespace}"
	}
	return base + "/" + info.Resource
}

func opID(verb string, info api.ResourceInfo, suffix string) string {
	scope := ""
	if info.Namespaced {
		scope = "Namespaced"
	}
	return verb + strings.Title(strings.ReplaceAll(info.Group, ".", "")) + strings.Title(info.Version) + scope + info.Kind + suffix //nolint:staticcheck // ASCII names only
}

func addResourcePaths(paths map[string]any, info api.ResourceInfo, kindRef, listRef string) {
	gvk := gvkExt(info.Group, info.Version, info.Kind)
	verbs := map[string]bool{}
	for _, v := range info.Verbs {
		verbs[v] = true
	}
	coll := map[string]any{}
	if verbs["list"] && listRef != "" {
		coll["get"] = operation(opID("list", info, ""), "list", gvk, listRef)
	}
	if verbs["create"] {
		op := operation(opID("create", info, ""), "post", gvk, kindRef)
		op["parameters"] = writeParams()
		op["requestBody"] = jsonBody(kindRef)
		coll["post"] = op
	}
	if len(coll) > 0 {
		paths[resourceBase(info)] = coll
	}
	item := map[string]any{}
	if verbs["get"] {
		item["get"] = operation(opID("read", info, ""), "get", gvk, kindRef)
	}
	if verbs["update"] {
		op := operation(opID("replace", info, ""), "put", gvk, kindRef)
		op["parameters"] = writeParams()
		op["requestBody"] = jsonBody(kindRef)
		item["put"] = op
	}
	if verbs["patch"] {
		item["patch"] = patchOperation(opID("patch", info, ""), gvk, kindRef)
	}
	if verbs["delete"] {
		op := operation(opID("delete", info, ""), "delete", gvk, "io.k8s.apimachinery.pkg.apis.meta.v1.Status")
		op["requestBody"] = jsonBody("io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions")
		op["requestBody"].(map[string]any)["required"] = false
		item["delete"] = op
	}
	if len(item) > 0 {
		paths[resourceBase(info)+"/{name}"] = item
	}
}

func addSubresourcePath(paths map[string]any, info api.ResourceInfo, sub api.Subresource, ref string) {
	gvk := gvkExt(sub.Group, sub.Version, sub.Kind)
	suffix := strings.Title(sub.Name) //nolint:staticcheck // ASCII names only
	item := map[string]any{}
	verbs := append([]string(nil), sub.Verbs...)
	sort.Strings(verbs)
	for _, v := range verbs {
		switch v {
		case "get":
			item["get"] = operation(opID("read", info, suffix), "get", gvk, ref)
		case "update":
			op := operation(opID("replace", info, suffix), "put", gvk, ref)
			op["parameters"] = writeParams()
			op["requestBody"] = jsonBody(ref)
			item["put"] = op
		case "patch":
			item["patch"] = patchOperation(opID("patch", info, suffix), gvk, ref)
		}
	}
	if len(item) > 0 {
		paths[resourceBase(info)+"/{name}/"+sub.Name] = item
	}
}
