package apiserver

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/converge-dev/converge/impl/api"
)

// Custom resources' bad requests: rows of TestBadRequestsAreRefusedWithoutWriting
// against the Widget CRD (examples/crd/bases/example.com_widgets.yaml) and a Gadget CRD
// with no status subresource and an unserved version, both installed by
// installCRDs before the table runs. Each row's code, reason and message
// are kube-apiserver's (apiextensions-apiserver's customresource_handler.go
// and the generic handlers of k8s.io/apiserver/pkg/endpoints/handlers, at
// the version go.mod requires).

const (
	crdsPath    = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
	widgetA     = widgets + "/a"
	betaWidgets = "/apis/example.com/v1beta1/namespaces/default/widgets"
	gadgets     = "/apis/example.com/v1/namespaces/default/gadgets"
)

// gadgetCRDYAML is a CRD whose only served version has no status
// subresource, beside a version that is not served.
const gadgetCRDYAML = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: gadgets.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {plural: gadgets, singular: gadget, kind: Gadget, listKind: GadgetList}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}
  - name: v1alpha1
    served: false
    storage: false
    schema:
      openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}
`

// yamlJSON is y as JSON; y is a constant of the tests'.
func yamlJSON(y string) string {
	j, err := yaml.YAMLToJSON([]byte(y))
	if err != nil {
		panic(err)
	}
	return string(j)
}

// badCRD is a CRD named name (plural bads, group example.com) whose
// versions are versions, as YAML.
func badCRD(name, versions string) string {
	return yamlJSON(`
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: ` + name + `}
spec:
  group: example.com
  scope: Namespaced
  names: {plural: bads, singular: bad, kind: Bad, listKind: BadList}
  versions:
` + versions)
}

// installCRDs runs e's CRD controllers for the test, installs the Widget
// and Gadget CRDs with a Widget a and a Gadget g, and waits until the
// controllers are done writing. When the test ends the controllers stop,
// and with them the serving of the CRDs' resources (which is process-wide).
func installCRDs(t *testing.T, e *testEnv) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); e.reg.RunCRDs(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	e.must(http.StatusCreated, "POST", crdsPath, widgetCRD(t))
	e.must(http.StatusCreated, "POST", crdsPath, yamlJSON(gadgetCRDYAML))
	for _, name := range []string{"widgets.example.com", "gadgets.example.com"} {
		e.waitFor(name+" to be established", func() bool { return crdCondition(t, e, name, "Established") == "True" })
	}
	e.must(http.StatusCreated, "POST", widgets, widgetJSON("a", `{"image":"nginx:1.27"}`))
	e.must(http.StatusCreated, "POST", gadgets, `{"apiVersion":"example.com/v1","kind":"Gadget","metadata":{"name":"g"},"spec":{"any":"thing"}}`)
	e.settle()
}

// settle waits until the store's revision has not moved for 300 ms: the
// CRD controllers write asynchronously.
func (e *testEnv) settle() {
	e.t.Helper()
	last, since := e.rev(), time.Now()
	e.waitFor("the store to settle", func() bool {
		if rev := e.rev(); rev != last {
			last, since = rev, time.Now()
		}
		return time.Since(since) >= 300*time.Millisecond
	})
}

// Two CRDs of one group keep their objects apart: a Gadget is stored and
// read as a gadget, not among the widgets. (Before 500ba15 the registry
// cached one ResourceInfo per Go type, and every custom resource is an
// *api.CustomObject: the gadget went to the widgets, unvalidated by their
// schema, and GET gadgets/g was 404.)
func TestCustomResourcesOfTwoCRDsStayApart(t *testing.T) {
	e := newEnv(t)
	installCRDs(t, e) // creates the Widget a, then the Gadget g
	var l api.CustomObjectList
	e.must(http.StatusOK, "GET", widgets, "").into(t, &l)
	var names []string
	for _, w := range l.Items {
		names = append(names, w.Kind+"/"+w.Name)
	}
	r := e.do("GET", gadgets+"/g", "")
	var g api.CustomObject
	if r.code != http.StatusOK || slices.Contains(names, "Widget/g") {
		t.Fatalf("GET gadgets/g: %d %s; widgets: %v", r.code, r.body, names)
	}
	r.into(t, &g)
	if g.Kind != "Gadget" || g.Content["spec"].(map[string]any)["any"] != "thing" {
		t.Fatalf("gadget g: %+v", g)
	}
	if !slices.Equal(names, []string{"Widget/a"}) {
		t.Fatalf("widgets: %v", names)
	}
}

// A deleted CRD goes once its custom resources have, whatever its status:
// upstream's finalizer controller drops its finalizer through the status
// subresource (apiextensions-apiserver's controller/finalizer
// crd_finalizer.go), whose validation does not hold storedVersions to
// spec.versions (validation.ValidateUpdateCustomResourceDefinitionStatus),
// so a status that lists a version the spec lacks, which the status
// subresource accepts, does not keep the CRD.
func TestDeletedCRDGoesWhateverItsStoredVersions(t *testing.T) {
	e := newCRDEnv(t)
	e.must(http.StatusCreated, "POST", widgets, widgetJSON("a", `{"image":"nginx"}`))
	e.must(http.StatusOK, "PATCH", crdsPath+"/widgets.example.com/status", `{"status":{"storedVersions":["v1","v0"]}}`, "Content-Type: "+mergePatchType)
	e.must(http.StatusOK, "DELETE", crdsPath+"/widgets.example.com", "")
	gone := func() bool { return e.do("GET", crdsPath+"/widgets.example.com", "").code == http.StatusNotFound }
	for deadline := time.Now().Add(5 * time.Second); !gone() && time.Now().Before(deadline); {
		time.Sleep(50 * time.Millisecond)
	}
	if !gone() {
		t.Fatalf("the CRD is still there 5 s after its deletion: %s", e.do("GET", crdsPath+"/widgets.example.com", "").body)
	}
	e.must(http.StatusNotFound, "GET", widgets, "")
}

func customBadRequests() []badRequest {
	widget := func(name, spec string) string { return widgetJSON(name, spec) }
	withMeta := func(body, meta string) string {
		return strings.Replace(body, `"metadata":{`, `"metadata":{`+meta+`,`, 1)
	}
	valid := widget("new", `{"image":"nginx"}`)
	// at is a body of kind at apiVersion named name: a row that converge
	// may wrongly accept has a name of its own, so that what it creates
	// does not change another row's answer.
	at := func(name, apiVersion, kind string) string {
		return `{"apiVersion":"` + apiVersion + `","kind":"` + kind + `","metadata":{"name":"` + name + `"},"spec":{"image":"nginx"}}`
	}
	mergePatch := []string{"Content-Type: " + mergePatchType}
	jsonPatch := []string{"Content-Type: " + jsonPatchType}
	storage := "  - {name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object}}}\n"
	return []badRequest{
		// Decoding (handlers/create.go: transformDecodeError, 400).
		{name: "custom resource: body not JSON", method: "POST", path: widgets, body: `{"apiVersion":`, code: 400, reason: api.StatusReasonBadRequest},
		{name: "custom resource: body not an object", method: "POST", path: widgets, body: `[1]`, code: 400, reason: api.StatusReasonBadRequest},
		{name: "custom resource: empty body", method: "POST", path: widgets, body: " ", code: 400, reason: api.StatusReasonBadRequest},
		// The kind is not checked when decoding into unstructured: the
		// custom resource validator refuses it (customresource/validator.go
		// ValidateTypeMeta), 422 with a cause on kind.
		{name: "custom resource: kind not the CRD's", method: "POST", path: widgets, body: at("kind", "example.com/v1", "Gadget"), code: 422, reason: api.StatusReasonInvalid,
			cause: "kind", msg: `kind: Invalid value: "Gadget": must be Widget`},
		// The apiVersion must be the URL's (handlers/create.go
		// AcceptsGroupVersion): 400 for a version the CRD does not serve,
		// does not have, or serves but is not the URL's.
		{name: "custom resource: apiVersion of an unserved version", method: "POST", path: gadgets, body: at("unserved", "example.com/v1alpha1", "Gadget"), code: 400, reason: api.StatusReasonBadRequest,
			msg: "the API version in the data (example.com/v1alpha1) does not match the expected API version (example.com/v1)"},
		{name: "custom resource: apiVersion of a version the CRD lacks", method: "POST", path: widgets, body: at("lacking", "example.com/v2", "Widget"), code: 400, reason: api.StatusReasonBadRequest,
			msg: "the API version in the data (example.com/v2) does not match the expected API version (example.com/v1)"},
		{name: "custom resource: apiVersion of another served version", method: "POST", path: widgets, body: at("beta-at-v1", "example.com/v1beta1", "Widget"), code: 400, reason: api.StatusReasonBadRequest,
			msg: "the API version in the data (example.com/v1beta1) does not match the expected API version (example.com/v1)"},
		{name: "custom resource: a built-in kind", method: "POST", path: widgets, body: deploymentJSON("builtin", 1, "nginx"), code: 400, reason: api.StatusReasonBadRequest,
			msg: "the API version in the data (apps/v1) does not match the expected API version (example.com/v1)"},
		{name: "custom resource: PUT at another version's apiVersion", method: "PUT", path: widgetA, body: strings.Replace(withMeta(widget("a", `{"image":"nginx:1.27"}`), `"resourceVersion":"1"`), "example.com/v1", "example.com/v1beta1", 1),
			code: 400, reason: api.StatusReasonBadRequest, msg: "the API version in the data (example.com/v1beta1) does not match the expected API version (example.com/v1)"},

		// Patches (handlers/patch.go; customresource_handler.go offers JSON,
		// merge and apply patches only).
		{name: "custom resource: strategic merge patch", method: "PATCH", path: widgetA, body: `{"spec":{"replicas":3}}`, hdr: []string{"Content-Type: " + strategicPatchType},
			code: 415, reason: api.StatusReasonUnsupportedMediaType,
			msg: "the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml"},
		{name: "custom resource: strategic merge patch of status", method: "PATCH", path: widgetA + "/status", body: `{"status":{"readyReplicas":1}}`, hdr: []string{"Content-Type: " + strategicPatchType},
			code: 415, reason: api.StatusReasonUnsupportedMediaType, msg: "accepted media types include: application/json-patch+json"},
		{name: "custom resource: json patch path missing", method: "PATCH", path: widgetA, body: `[{"op":"remove","path":"/spec/nothing"}]`, hdr: jsonPatch, code: 422, reason: api.StatusReasonInvalid},
		{name: "custom resource: json patch test fails", method: "PATCH", path: widgetA, body: `[{"op":"test","path":"/spec/image","value":"other"},{"op":"replace","path":"/spec/replicas","value":2}]`, hdr: jsonPatch,
			code: 422, reason: api.StatusReasonInvalid},
		{name: "custom resource: json patch not a list", method: "PATCH", path: widgetA, body: `{"op":"add"}`, hdr: jsonPatch, code: 400, reason: api.StatusReasonBadRequest},
		{name: "custom resource: malformed merge patch", method: "PATCH", path: widgetA, body: `{"spec":`, hdr: mergePatch, code: 400, reason: api.StatusReasonBadRequest},
		{name: "custom resource: patch renames the object", method: "PATCH", path: widgetA, body: `{"metadata":{"name":"other"}}`, hdr: mergePatch, code: 400, reason: api.StatusReasonBadRequest},
		{name: "custom resource: merge patch of a missing object", method: "PATCH", path: widgets + "/ghost", body: `{"spec":{"replicas":2}}`, hdr: mergePatch,
			code: 404, reason: api.StatusReasonNotFound, msg: `widgets.example.com "ghost" not found`},

		// The CRD's OpenAPI schema (422 with the field's path) and its
		// x-kubernetes-validations rules (422 with the rule's message).
		{name: "custom resource: schema maximum", method: "POST", path: widgets, body: widget("bad", `{"image":"nginx","replicas":11}`), code: 422, reason: api.StatusReasonInvalid,
			cause: "spec.replicas", msg: "spec.replicas in body should be less than or equal to 10"},
		{name: "custom resource: schema enum", method: "POST", path: widgets, body: widget("bad", `{"image":"nginx","size":"huge"}`), code: 422, reason: api.StatusReasonInvalid,
			cause: "spec.size", msg: `Unsupported value: "huge"`},
		{name: "custom resource: schema required", method: "POST", path: widgets, body: widget("bad", `{"replicas":1}`), code: 422, reason: api.StatusReasonInvalid,
			cause: "spec.image", msg: "Required value"},
		{name: "custom resource: schema pattern", method: "POST", path: widgets, body: widget("bad", `{"image":"NGINX!"}`), code: 422, reason: api.StatusReasonInvalid, cause: "spec.image"},
		// A type mismatch is a FieldValueTypeInvalid cause, which
		// apimachinery's field.ErrorType prints "Invalid value".
		{name: "custom resource: schema type", method: "POST", path: widgets, body: widget("bad", `{"image":"nginx","replicas":"two"}`), code: 422, reason: api.StatusReasonInvalid,
			cause: "spec.replicas", msg: `spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"`},
		{name: "custom resource: schema violation in a merge patch", method: "PATCH", path: widgetA, body: `{"spec":{"replicas":11}}`, hdr: mergePatch, code: 422, reason: api.StatusReasonInvalid, cause: "spec.replicas"},
		{name: "custom resource: schema violation in a dry run", method: "POST", path: widgets + "?dryRun=All", body: widget("bad", `{"image":"nginx","replicas":11}`), code: 422, reason: api.StatusReasonInvalid, cause: "spec.replicas"},
		{name: "custom resource: CEL rule", method: "POST", path: widgets, body: widget("bad", `{"image":"nginx","replicas":6}`), code: 422, reason: api.StatusReasonInvalid,
			cause: "spec", msg: "more than 5 replicas need size large"},
		{name: "custom resource: CEL transition rule", method: "PATCH", path: widgetA, body: `{"spec":{"image":"nginx:2"}}`, hdr: mergePatch, code: 422, reason: api.StatusReasonInvalid,
			cause: "spec", msg: "image is immutable"},
		{name: "custom resource: status schema", method: "PATCH", path: widgetA + "/status", body: `{"status":{"readyReplicas":-1}}`, hdr: mergePatch, code: 422, reason: api.StatusReasonInvalid,
			cause: "status.readyReplicas"},

		// fieldValidation=Strict: 400 on create and update
		// (transformDecodeError), 422 on a patch (patch.go
		// applyPatchToCurrentObject).
		{name: "custom resource: unknown field, Strict", method: "POST", path: widgets + "?fieldValidation=Strict", body: widget("bad", `{"image":"nginx","x":1}`), code: 400, reason: api.StatusReasonBadRequest,
			msg: `Widget in version "v1" cannot be handled as a Widget: strict decoding error: unknown field "spec.x"`},
		{name: "custom resource: unknown field in a merge patch, Strict", method: "PATCH", path: widgetA + "?fieldValidation=Strict", body: `{"spec":{"x":1}}`, hdr: mergePatch,
			code: 422, reason: api.StatusReasonInvalid, msg: `strict decoding error: unknown field "spec.x"`},
		// handlers/create.go ValidateCreateOptions (any resource).
		{name: "custom resource: unknown fieldValidation", method: "POST", path: widgets + "?fieldValidation=Loose", body: widget("loose", `{"image":"nginx"}`), code: 422, reason: api.StatusReasonInvalid,
			cause: "fieldValidation", msg: `Unsupported value: "Loose"`},

		// Names and namespaces (registry/rest/meta.go,
		// handlers/rest.go checkName).
		{name: "custom resource: namespace not the URL's", method: "POST", path: widgets, body: withMeta(valid, `"namespace":"other"`), code: 400, reason: api.StatusReasonBadRequest,
			msg: "the namespace of the provided object does not match the namespace sent on the request"},
		{name: "custom resource: PUT name not the URL's", method: "PUT", path: widgetA, body: widget("b", `{"image":"nginx:1.27"}`), code: 400, reason: api.StatusReasonBadRequest,
			msg: "the name of the object (b) does not match the name on the URL (a)"},
		{name: "custom resource: PUT namespace not the URL's", method: "PUT", path: widgetA, body: withMeta(widget("a", `{"image":"nginx:1.27"}`), `"namespace":"other"`), code: 400, reason: api.StatusReasonBadRequest,
			msg: "the namespace of the provided object does not match the namespace sent on the request"},
		{name: "custom resource: invalid name", method: "POST", path: widgets, body: widget("Bad_Name", `{"image":"nginx"}`), code: 422, reason: api.StatusReasonInvalid, cause: "metadata.name"},
		{name: "custom resource: already exists", method: "POST", path: widgets, body: widget("a", `{"image":"nginx:1.27"}`), code: 409, reason: api.StatusReasonAlreadyExists,
			msg: `widgets.example.com "a" already exists`},
		// Custom resources allow no unconditional update
		// (customresource/strategy.go AllowUnconditionalUpdate;
		// generic/registry/store.go Update).
		{name: "custom resource: PUT without a resourceVersion", method: "PUT", path: widgetA, body: widget("a", `{"image":"nginx:1.27"}`), code: 422, reason: api.StatusReasonInvalid,
			cause: "metadata.resourceVersion", msg: "must be specified for an update"},
		{name: "custom resource: PUT with a stale resourceVersion", method: "PUT", path: widgetA, body: withMeta(widget("a", `{"image":"nginx:1.27"}`), `"resourceVersion":"1"`), code: 409, reason: api.StatusReasonConflict,
			msg: api.OptimisticLockErrorMsg},
		{name: "custom resource: PUT of a missing object", method: "PUT", path: widgets + "/ghost", body: withMeta(widget("ghost", `{"image":"nginx"}`), `"resourceVersion":"1"`), code: 404, reason: api.StatusReasonNotFound,
			msg: `widgets.example.com "ghost" not found`},
		{name: "custom resource: missing object", method: "GET", path: widgets + "/ghost", code: 404, reason: api.StatusReasonNotFound, msg: `widgets.example.com "ghost" not found`},
		{name: "custom resource: delete missing object", method: "DELETE", path: widgets + "/ghost", code: 404, reason: api.StatusReasonNotFound, msg: `widgets.example.com "ghost" not found`},
		{name: "custom resource: missing object at another served version", method: "GET", path: betaWidgets + "/ghost", code: 404, reason: api.StatusReasonNotFound, msg: `widgets.example.com "ghost" not found`},

		// What the CRD does not serve falls through to the 404 handler
		// (customresource_handler.go ServeHTTP: delegate).
		{name: "custom resource: a version the CRD lacks", method: "GET", path: "/apis/example.com/v2/namespaces/default/widgets", code: 404, reason: api.StatusReasonNotFound,
			msg: "the server could not find the requested resource"},
		{name: "custom resource: create at a version the CRD lacks", method: "POST", path: "/apis/example.com/v2/namespaces/default/widgets", body: at("new", "example.com/v2", "Widget"), code: 404, reason: api.StatusReasonNotFound},
		{name: "custom resource: an unserved version", method: "GET", path: "/apis/example.com/v1alpha1/namespaces/default/gadgets/g", code: 404, reason: api.StatusReasonNotFound,
			msg: "the server could not find the requested resource"},
		{name: "custom resource: create at an unserved version", method: "POST", path: "/apis/example.com/v1alpha1/namespaces/default/gadgets", body: at("new", "example.com/v1alpha1", "Gadget"), code: 404, reason: api.StatusReasonNotFound},
		{name: "custom resource: a CRD not installed", method: "GET", path: "/apis/example.com/v1/namespaces/default/gizmos", code: 404, reason: api.StatusReasonNotFound,
			msg: "the server could not find the requested resource"},
		{name: "custom resource: create of a CRD not installed", method: "POST", path: "/apis/gizmos.example.org/v1/namespaces/default/gizmos", body: at("new", "gizmos.example.org/v1", "Gizmo"), code: 404, reason: api.StatusReasonNotFound},
		// Only list and watch of a namespaced custom resource may leave the
		// namespace out (customresource_handler.go
		// possiblyAcrossAllNamespacesVerbs); the rest is delegated: 404.
		{name: "custom resource: a namespaced resource created at the cluster scope", method: "POST", path: "/apis/example.com/v1/widgets", body: widget("cluster", `{"image":"nginx"}`), code: 404, reason: api.StatusReasonNotFound},
		{name: "custom resource: deletecollection at the cluster scope", method: "DELETE", path: "/apis/example.com/v1/widgets?dryRun=All", code: 404, reason: api.StatusReasonNotFound},
		// An unknown subresource, or one the version does not have, is
		// NotFound naming the object (customresource_handler.go ServeHTTP).
		{name: "custom resource: status of a version without the subresource", method: "PUT", path: gadgets + "/g/status", body: `{"apiVersion":"example.com/v1","kind":"Gadget","metadata":{"name":"g"},"status":{"ok":true}}`,
			code: 404, reason: api.StatusReasonNotFound, msg: `gadgets.example.com "g" not found`},
		{name: "custom resource: scale of a version without the subresource", method: "GET", path: gadgets + "/g/scale", code: 404, reason: api.StatusReasonNotFound, msg: `gadgets.example.com "g" not found`},
		{name: "custom resource: unknown subresource", method: "GET", path: widgetA + "/frob", code: 404, reason: api.StatusReasonNotFound, msg: `widgets.example.com "a" not found`},
		// The scale subresource writes spec.replicas, which the schema
		// still validates (customresource/etcd.go scaleUpdatedObjectInfo).
		{name: "custom resource: scale above the schema's maximum", method: "PUT", path: widgetA + "/scale", body: `{"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{"name":"a","namespace":"default"},"spec":{"replicas":11}}`,
			code: 422, reason: api.StatusReasonInvalid, cause: "spec.replicas"},
		{name: "custom resource: scale to negative replicas", method: "PATCH", path: widgetA + "/scale", body: `{"spec":{"replicas":-1}}`, hdr: mergePatch, code: 422, reason: api.StatusReasonInvalid, cause: "spec.replicas"},
		{name: "custom resource: scale against a CEL rule", method: "PATCH", path: widgetA + "/scale", body: `{"spec":{"replicas":6}}`, hdr: mergePatch, code: 422, reason: api.StatusReasonInvalid,
			msg: "more than 5 replicas need size large"},
		{name: "custom resource: scale body of the wrong kind", method: "PUT", path: widgetA + "/scale", body: widget("a", `{"image":"nginx:1.27"}`), code: 400, reason: api.StatusReasonBadRequest},
		// A field selector on a field the CRD does not make selectable
		// (conversion/converter.go ConvertFieldLabel; handlers/get.go).
		{name: "custom resource: fieldSelector on a field not selectable", method: "GET", path: widgets + "?fieldSelector=spec.image%3Dnginx", code: 400, reason: api.StatusReasonBadRequest,
			msg: "field label not supported: spec.image"},
		{name: "custom resource: invalid labelSelector", method: "GET", path: widgets + "?labelSelector=a%20in%20(", code: 400, reason: api.StatusReasonBadRequest},

		// CRDs that do not validate (apiextensions/validation/validation.go),
		// 422 with the field's path.
		{name: "CRD: no storage version", method: "POST", path: crdsPath, body: badCRD("bads.example.com", "  - {name: v1, served: true, storage: false, schema: {openAPIV3Schema: {type: object}}}\n"),
			code: 422, reason: api.StatusReasonInvalid, cause: "spec.versions", msg: "must have exactly one version marked as storage version"},
		{name: "CRD: two storage versions", method: "POST", path: crdsPath, body: badCRD("bads.example.com", storage+strings.Replace(storage, "v1,", "v2,", 1)),
			code: 422, reason: api.StatusReasonInvalid, cause: "spec.versions", msg: "must have exactly one version marked as storage version"},
		{name: "CRD: no versions", method: "POST", path: crdsPath, body: badCRD("bads.example.com", "    []\n"), code: 422, reason: api.StatusReasonInvalid, cause: "spec.versions"},
		{name: "CRD: non-structural schema", method: "POST", path: crdsPath,
			body: badCRD("bads.example.com", "  - {name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object, properties: {spec: {properties: {a: {type: string}}}}}}}\n"),
			// A version's schema is validated where conversion to the
			// internal CRD puts it: spec.validation when every version has
			// the same (apiextensions/v1/conversion.go).
			code: 422, reason: api.StatusReasonInvalid, cause: "spec.validation.openAPIV3Schema.properties[spec].type", msg: "must not be empty for specified object fields"},
		{name: "CRD: default of the wrong type", method: "POST", path: crdsPath, body: badCRD("bads.example.com", "  - {name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object, properties: {count: {type: integer, default: x}}}}}\n"),
			code: 422, reason: api.StatusReasonInvalid, cause: "spec.validation.openAPIV3Schema.properties[count].default",
			msg: `spec.validation.openAPIV3Schema.properties[count].default: Invalid value: "string":  in body must be of type integer: "string"`},
		{name: "CRD: no schema", method: "POST", path: crdsPath, body: badCRD("bads.example.com", "  - {name: v1, served: true, storage: true}\n"),
			code: 422, reason: api.StatusReasonInvalid, cause: "spec.versions[0].schema.openAPIV3Schema", msg: "Required value"},
		{name: "CRD: CEL rule that does not compile", method: "POST", path: crdsPath,
			body: badCRD("bads.example.com", "  - {name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object, x-kubernetes-validations: [{rule: 'self.nope =='}]}}}\n"),
			code: 422, reason: api.StatusReasonInvalid, msg: "compilation failed"},
		{name: "CRD: name not plural.group", method: "POST", path: crdsPath, body: badCRD("bad.example.com", storage),
			code: 422, reason: api.StatusReasonInvalid, cause: "metadata.name", msg: `must be spec.names.plural+"."+spec.group`},
		{name: "CRD: group without a dot", method: "POST", path: crdsPath, body: strings.Replace(strings.Replace(badCRD("bads.example", storage), `"group":"example.com"`, `"group":"example"`, 1), "bads.example.com", "bads.example", 1),
			code: 422, reason: api.StatusReasonInvalid, cause: "spec.group"},
		{name: "CRD: already exists", method: "POST", path: crdsPath, body: yamlJSON(gadgetCRDYAML), code: 409, reason: api.StatusReasonAlreadyExists,
			msg: `customresourcedefinitions.apiextensions.k8s.io "gadgets.example.com" already exists`},
		{name: "CRD: scope is immutable", method: "PATCH", path: crdsPath + "/gadgets.example.com", body: `[{"op":"replace","path":"/spec/scope","value":"Cluster"}]`, hdr: jsonPatch,
			code: 422, reason: api.StatusReasonInvalid, cause: "spec.scope", msg: "field is immutable"},
		{name: "CRD: storage version dropped", method: "PATCH", path: crdsPath + "/gadgets.example.com", body: `[{"op":"remove","path":"/spec/versions/0"}]`, hdr: jsonPatch,
			code: 422, reason: api.StatusReasonInvalid, cause: "spec.versions", msg: "must have exactly one version marked as storage version"},
	}
}
