package apiserver

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/impl/store/storetest"
)

// badRequest is one request the server must refuse without writing.
type badRequest struct {
	name         string
	method, path string
	body         string
	hdr          []string
	token        string // "" means the admin token; "-" means none
	code         int
	reason       api.StatusReason
	msg          string // a substring of the message, when it matters
	cause        string // a field one of the Status's causes names, when it matters
}

const (
	webPath = deployPath + "/web"
	podPath = "/api/v1/namespaces/default/pods"
)

func badRequests() []badRequest {
	big := `{"metadata":{"name":"big","annotations":{"a":"` + strings.Repeat("x", 70<<10) + `"}}}`
	web := func(mut func(string) string) string { return mut(deploymentJSON("web", 2, "nginx:1.27")) }
	return append([]badRequest{
		{name: "malformed JSON", method: "POST", path: deployPath, body: `{"apiVersion":`, code: 400, reason: api.StatusReasonBadRequest},
		{name: "empty body", method: "POST", path: deployPath, body: " ", code: 400, reason: api.StatusReasonBadRequest},
		{name: "unknown kind", method: "POST", path: deployPath, body: strings.Replace(deploymentJSON("x", 1, "a"), `"Deployment"`, `"Frobnicator"`, 1), code: 400, reason: api.StatusReasonBadRequest, msg: "kind"},
		{name: "wrong apiVersion", method: "POST", path: deployPath, body: strings.Replace(deploymentJSON("x", 1, "a"), `"apps/v1"`, `"apps/v2"`, 1), code: 400, reason: api.StatusReasonBadRequest, msg: "API version"},
		{name: "kind not the URL's", method: "POST", path: podPath, body: deploymentJSON("x", 1, "a"), code: 400, reason: api.StatusReasonBadRequest, msg: "does not match the expected"},
		{name: "unknown field", method: "POST", path: deployPath + "?fieldValidation=Strict", body: strings.Replace(deploymentJSON("x", 1, "a"), `"replicas"`, `"replicaz"`, 1), code: 400, reason: api.StatusReasonBadRequest,
			msg: `Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: unknown field "spec.replicaz"`},
		{name: "duplicate field", method: "POST", path: podPath + "?fieldValidation=Strict", body: strings.Replace(podJSON("dup", nil), `"name":"dup"`, `"name":"dup","name":"dup2"`, 1), code: 400, reason: api.StatusReasonBadRequest,
			msg: `Pod in version "v1" cannot be handled as a Pod: strict decoding error: duplicate field "metadata.name"`},
		{name: "wrong type", method: "POST", path: deployPath, body: strings.Replace(deploymentJSON("x", 1, "a"), `"replicas":1`, `"replicas":"1"`, 1), code: 400, reason: api.StatusReasonBadRequest,
			msg: `Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32`},
		{name: "invalid name", method: "POST", path: deployPath, body: deploymentJSON("Bad_Name", 1, "nginx"), code: 422, reason: api.StatusReasonInvalid, msg: "metadata.name"},
		{name: "negative replicas", method: "POST", path: deployPath, body: deploymentJSON("neg", -1, "nginx"), code: 422, reason: api.StatusReasonInvalid, msg: "spec.replicas"},
		{name: "selector mismatch", method: "POST", path: deployPath, body: strings.Replace(deploymentJSON("sel", 1, "nginx"), `"matchLabels":{"app":"sel"}`, `"matchLabels":{"app":"other"}`, 1), code: 422, reason: api.StatusReasonInvalid, msg: "selector"},
		{name: "resourceVersion on create", method: "POST", path: deployPath, body: strings.Replace(deploymentJSON("rv", 1, "nginx"), `"name":"rv"`, `"name":"rv","resourceVersion":"5"`, 1), code: 400, reason: api.StatusReasonBadRequest},
		{name: "namespace not the URL's", method: "POST", path: deployPath, body: strings.Replace(deploymentJSON("ns", 1, "nginx"), `"name":"ns"`, `"name":"ns","namespace":"other"`, 1), code: 400, reason: api.StatusReasonBadRequest, msg: "namespace"},
		{name: "already exists", method: "POST", path: deployPath, body: deploymentJSON("web", 1, "nginx"), code: 409, reason: api.StatusReasonAlreadyExists, msg: `deployments.apps "web" already exists`},
		{name: "stale resourceVersion", method: "PUT", path: webPath, body: web(func(s string) string {
			return strings.Replace(s, `"name":"web"`, `"name":"web","resourceVersion":"1"`, 1)
		}), code: 409, reason: api.StatusReasonConflict, msg: api.OptimisticLockErrorMsg},
		{name: "PUT name not the URL's", method: "PUT", path: webPath, body: deploymentJSON("other", 1, "nginx"), code: 400, reason: api.StatusReasonBadRequest, msg: "does not match the name on the URL"},
		{name: "PUT of a missing object", method: "PUT", path: deployPath + "/ghost", body: deploymentJSON("ghost", 1, "nginx"), code: 404, reason: api.StatusReasonNotFound},
		{name: "oversized body", method: "POST", path: deployPath, body: big, code: 413, reason: api.StatusReasonRequestEntityTooLarge},
		{name: "bad content type", method: "POST", path: deployPath, body: deploymentJSON("ct", 1, "nginx"), hdr: []string{"Content-Type: text/plain"}, code: 415, reason: api.StatusReasonUnsupportedMediaType},
		{name: "protobuf body", method: "POST", path: deployPath, body: "k8s\x00", hdr: []string{"Content-Type: " + protobufType}, code: 400, reason: api.StatusReasonBadRequest, msg: "protobuf"},
		{name: "protobuf with the wrong magic", method: "POST", path: "/api/v1/namespaces", body: "k8s\x01" + protobufNamespace("ns")[4:], hdr: []string{"Content-Type: " + protobufType}, code: 400, reason: api.StatusReasonBadRequest, msg: "does not appear to be a protobuf message"},
		{name: "truncated protobuf", method: "POST", path: "/api/v1/namespaces", body: strings.TrimSuffix(protobufNamespace("ns"), "ns"), hdr: []string{"Content-Type: " + protobufType}, code: 400, reason: api.StatusReasonBadRequest, msg: "unexpected EOF"},
		{name: "protobuf kind not the URL's", method: "POST", path: deployPath, body: protobufNamespace("ns"), hdr: []string{"Content-Type: " + protobufType}, code: 400, reason: api.StatusReasonBadRequest, msg: "does not match the expected"},
		{name: "protobuf of a kind converge does not read", method: "POST", path: deployPath, body: protobufBody("v1", "Frobnicator", nil), hdr: []string{"Content-Type: " + protobufType}, code: 400, reason: api.StatusReasonBadRequest, msg: "no kind \"Frobnicator\" is registered"},
		{name: "protobuf patch", method: "PATCH", path: webPath, body: protobufNamespace("web"), hdr: []string{"Content-Type: " + protobufType}, code: 415, reason: api.StatusReasonUnsupportedMediaType},
		{name: "unknown media type lists protobuf for writes", method: "POST", path: deployPath, body: "x", hdr: []string{"Content-Type: text/xml"}, code: 415, reason: api.StatusReasonUnsupportedMediaType,
			msg: "application/json, application/yaml, application/vnd.kubernetes.protobuf"},
		{name: "unknown patch type", method: "PATCH", path: webPath, body: `{}`, hdr: []string{"Content-Type: application/foo+json"}, code: 415, reason: api.StatusReasonUnsupportedMediaType},
		{name: "not acceptable", method: "GET", path: webPath, hdr: []string{"Accept: application/vnd.kubernetes.protobuf"}, code: 406, reason: api.StatusReasonNotAcceptable},
		{name: "unknown subresource", method: "GET", path: webPath + "/logs", code: 404, reason: api.StatusReasonNotFound},
		{name: "unknown resource", method: "GET", path: "/api/v1/namespaces/default/frobs", code: 404, reason: api.StatusReasonNotFound, msg: "the server could not find the requested resource"},
		{name: "a kind converge does not serve", method: "POST", path: "/apis/scheduling.k8s.io/v1/priorityclasses", body: "{}", code: 404, reason: api.StatusReasonNotFound, msg: "the server could not find the requested resource"},
		{name: "pod logs", method: "GET", path: podPath + "/p/log", code: 404, reason: api.StatusReasonNotFound, msg: "converge serves no container logs"},
		{name: "pod exec", method: "POST", path: podPath + "/p/exec", code: 404, reason: api.StatusReasonNotFound, msg: "converge does not serve pods/exec"},
		{name: "resource in the wrong group", method: "GET", path: "/api/v1/namespaces/default/deployments", code: 404, reason: api.StatusReasonNotFound},
		{name: "unknown version", method: "GET", path: "/apis/apps/v2/namespaces/default/deployments", code: 404, reason: api.StatusReasonNotFound},
		{name: "missing object", method: "GET", path: deployPath + "/ghost", code: 404, reason: api.StatusReasonNotFound, msg: `deployments.apps "ghost" not found`},
		{name: "delete missing object", method: "DELETE", path: deployPath + "/ghost", code: 404, reason: api.StatusReasonNotFound},
		{name: "PUT on a collection", method: "PUT", path: deployPath, body: deploymentJSON("web", 1, "nginx"), code: 405, reason: api.StatusReasonMethodNotAllowed},
		{name: "POST on an object", method: "POST", path: webPath, body: deploymentJSON("web", 1, "nginx"), code: 405, reason: api.StatusReasonMethodNotAllowed},
		{name: "deletecollection of namespaces", method: "DELETE", path: "/api/v1/namespaces", code: 405, reason: api.StatusReasonMethodNotAllowed},
		{name: "no token", method: "GET", path: deployPath, token: "-", code: 401, reason: api.StatusReasonUnauthorized},
		{name: "bad token", method: "GET", path: deployPath, token: "nope", code: 401, reason: api.StatusReasonUnauthorized},
		{name: "forbidden verb", method: "DELETE", path: webPath, token: viewerToken, code: 403, reason: api.StatusReasonForbidden,
			msg: `deployments.apps "web" is forbidden: User "viewer" cannot delete resource "deployments" in API group "apps" in the namespace "default"`},
		{name: "forbidden resource", method: "GET", path: "/api/v1/nodes", token: viewerToken, code: 403, reason: api.StatusReasonForbidden,
			msg: `nodes is forbidden: User "viewer" cannot list resource "nodes" in API group "" at the cluster scope`},
		{name: "forbidden namespace", method: "GET", path: podPath, token: devToken, code: 403, reason: api.StatusReasonForbidden,
			msg: `pods is forbidden: User "dev" cannot list resource "pods" in API group "" in the namespace "default"`},
		{name: "forbidden subresource", method: "PUT", path: webPath + "/status", body: deploymentJSON("web", 1, "nginx"), token: viewerToken, code: 403, reason: api.StatusReasonForbidden, msg: `"deployments/status"`},
		{name: "json-patch test fails", method: "PATCH", path: webPath, body: `[{"op":"test","path":"/spec/replicas","value":7},{"op":"replace","path":"/spec/replicas","value":9}]`, hdr: []string{"Content-Type: " + jsonPatchType}, code: 422, reason: api.StatusReasonInvalid},
		{name: "json-patch path missing", method: "PATCH", path: webPath, body: `[{"op":"remove","path":"/spec/nothing"}]`, hdr: []string{"Content-Type: " + jsonPatchType}, code: 422, reason: api.StatusReasonInvalid},
		{name: "json-patch not a list", method: "PATCH", path: webPath, body: `{"op":"add"}`, hdr: []string{"Content-Type: " + jsonPatchType}, code: 400, reason: api.StatusReasonBadRequest},
		{name: "json-patch unknown op", method: "PATCH", path: webPath, body: `[{"op":"frob","path":"/spec"}]`, hdr: []string{"Content-Type: " + jsonPatchType}, code: 400, reason: api.StatusReasonBadRequest},
		{name: "malformed merge patch", method: "PATCH", path: webPath, body: `{"spec":`, hdr: []string{"Content-Type: " + mergePatchType}, code: 400, reason: api.StatusReasonBadRequest},
		{name: "merge patch to an invalid object", method: "PATCH", path: webPath, body: `{"spec":{"replicas":-3}}`, hdr: []string{"Content-Type: " + mergePatchType}, code: 422, reason: api.StatusReasonInvalid},
		{name: "merge patch with a stale resourceVersion", method: "PATCH", path: webPath, body: `{"metadata":{"resourceVersion":"1"},"spec":{"replicas":4}}`, hdr: []string{"Content-Type: " + mergePatchType}, code: 409, reason: api.StatusReasonConflict},
		{name: "patch renames the object", method: "PATCH", path: webPath, body: `{"metadata":{"name":"other"}}`, hdr: []string{"Content-Type: " + mergePatchType}, code: 400, reason: api.StatusReasonBadRequest},
		{name: "strategic patch without merge key", method: "PATCH", path: webPath, body: `{"spec":{"template":{"spec":{"containers":[{"image":"x"}]}}}}`, hdr: []string{"Content-Type: " + strategicPatchType}, code: 422, reason: api.StatusReasonInvalid, msg: "merge key"},
		{name: "scale to negative replicas", method: "PUT", path: webPath + "/scale", body: `{"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{"name":"web","namespace":"default"},"spec":{"replicas":-1}}`, code: 422, reason: api.StatusReasonInvalid},
		{name: "scale body of the wrong kind", method: "PUT", path: webPath + "/scale", body: deploymentJSON("web", 1, "nginx"), code: 400, reason: api.StatusReasonBadRequest},
		{name: "bind to a missing node", method: "POST", path: podPath + "/p1/binding", body: `{"apiVersion":"v1","kind":"Binding","metadata":{"name":"p1"},"target":{"kind":"Node","name":"n9"}}`, code: 409, reason: api.StatusReasonConflict},
		{name: "bind a missing pod", method: "POST", path: podPath + "/ghost/binding", body: `{"apiVersion":"v1","kind":"Binding","metadata":{"name":"ghost"},"target":{"kind":"Node","name":"n1"}}`, code: 404, reason: api.StatusReasonNotFound},
		{name: "invalid limit", method: "GET", path: deployPath + "?limit=abc", code: 400, reason: api.StatusReasonBadRequest},
		// Selectors are refused with labels.Parse's and fields.ParseSelector's
		// messages, as kube-apiserver refuses them.
		{name: "invalid labelSelector", method: "GET", path: deployPath + "?labelSelector=a%20in%20(", code: 400, reason: api.StatusReasonBadRequest,
			msg: "unable to parse requirement: found '', expected: ',', ')' or identifier"},
		{name: "invalid labelSelector on a watch", method: "GET", path: deployPath + "?watch=true&labelSelector=a,,b", code: 400, reason: api.StatusReasonBadRequest,
			msg: "found ',', expected: identifier after ','"},
		{name: "unsupported fieldSelector", method: "GET", path: deployPath + "?fieldSelector=spec.replicas%3D1", code: 400, reason: api.StatusReasonBadRequest,
			msg: "field label not supported: spec.replicas"},
		{name: "fieldSelector without an operator", method: "GET", path: podPath + "?watch=true&fieldSelector=spec.nodeName", code: 400, reason: api.StatusReasonBadRequest,
			msg: "invalid selector: 'spec.nodeName'; can't understand 'spec.nodeName'"},
		{name: "malformed quantity", method: "POST", path: podPath, body: strings.Replace(podJSON("q", nil), `"name":"c"`, `"name":"c","resources":{"requests":{"cpu":"lots"}}`, 1),
			code: 400, reason: api.StatusReasonBadRequest, msg: "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"},
		{name: "invalid watch timeout", method: "GET", path: deployPath + "?watch=true&timeoutSeconds=x", code: 400, reason: api.StatusReasonBadRequest},
		{name: "unknown propagation", method: "DELETE", path: webPath + "?propagationPolicy=Sideways", code: 400, reason: api.StatusReasonBadRequest},
		{name: "malformed DeleteOptions", method: "DELETE", path: webPath, body: `{"gracePeriodSeconds":"soon"}`, code: 400, reason: api.StatusReasonBadRequest},
		{name: "dryRun other than All", method: "POST", path: deployPath + "?dryRun=Some", body: deploymentJSON("dry", 1, "nginx"), code: 400, reason: api.StatusReasonBadRequest},
		{name: "dry-run create of an existing name", method: "POST", path: deployPath + "?dryRun=All", body: deploymentJSON("web", 1, "nginx"), code: 409, reason: api.StatusReasonAlreadyExists},
		{name: "dry-run create that is invalid", method: "POST", path: deployPath + "?dryRun=All", body: deploymentJSON("neg", -1, "nginx"), code: 422, reason: api.StatusReasonInvalid, msg: "spec.replicas"},
		{name: "dry-run delete with a bad dryRun", method: "DELETE", path: webPath + "?dryRun=Some", code: 400, reason: api.StatusReasonBadRequest},
		{name: "dry-run update with a stale resourceVersion", method: "PUT", path: webPath + "?dryRun=All", body: web(func(s string) string {
			return strings.Replace(s, `"name":"web"`, `"name":"web","resourceVersion":"1"`, 1)
		}), code: 409, reason: api.StatusReasonConflict},
		{name: "dot name", method: "GET", path: deployPath + "/..", code: 400, reason: api.StatusReasonBadRequest},
	}, append(append(append(listQueryBadRequests(), storedBadRequests()...), workloadBadRequests()...), append(append(append(eventsV1BadRequests(), patchBadRequests()...), endpointSliceBadRequests()...), customBadRequests()...)...)...)
}

func TestBadRequestsAreRefusedWithoutWriting(t *testing.T) {
	e := newEnvOn(t, storetest.Store(t), testAuth(t, false), func(c *Config) { c.MaxBodyBytes = 64 << 10 })
	e.token = adminToken
	e.must(201, "POST", deployPath, deploymentJSON("web", 2, "nginx:1.27"))
	e.must(201, "POST", podPath, podJSON("p1", nil))
	e.must(201, "POST", "/api/v1/nodes", `{"apiVersion":"v1","kind":"Node","metadata":{"name":"n1"},"status":{"conditions":[{"type":"Ready","status":"True"}]}}`)
	installCRDs(t, e) // the Widget and Gadget CRDs for customBadRequests
	cases := badRequests()
	if len(cases) < 30 {
		t.Fatalf("only %d bad requests", len(cases))
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e.t = t
			switch c.token {
			case "":
				e.token = adminToken
			case "-":
				e.token = ""
			default:
				e.token = c.token
			}
			before := e.rev()
			r := e.do(c.method, c.path, c.body, c.hdr...)
			after := e.rev()
			st, why := answers(r, c)
			if why != "" {
				t.Fatalf("%s: %s", why, r.body)
			}
			if st.Status != api.StatusFailure {
				t.Fatalf("status %q", st.Status)
			}
			if ct := r.hdr.Get("Content-Type"); ct != "application/json" {
				t.Fatalf("Content-Type %q", ct)
			}
			if after != before {
				t.Fatalf("store revision moved from %d to %d", before, after)
			}
		})
	}
}

// answers says how r differs from c's answer ("" if it does not).
func answers(r response, c badRequest) (api.Status, string) {
	var st api.Status
	if err := json.Unmarshal(r.body, &st); err != nil || st.Kind != "Status" {
		return st, fmt.Sprintf("want a Status %d, got %d (%v)", c.code, r.code, err)
	}
	if r.code != c.code || st.Reason != c.reason || st.Code != int32(c.code) {
		return st, fmt.Sprintf("want %d %s, got %d %s", c.code, c.reason, r.code, st.Reason)
	}
	if !strings.Contains(st.Message, c.msg) {
		return st, fmt.Sprintf("message %q does not contain %q", st.Message, c.msg)
	}
	if c.cause != "" && (st.Details == nil || !slices.ContainsFunc(st.Details.Causes, func(sc api.StatusCause) bool { return sc.Field == c.cause })) {
		return st, fmt.Sprintf("no cause names the field %s", c.cause)
	}
	return st, ""
}

func TestWatchFromCompactedRevisionIsExpired(t *testing.T) {
	e := newEnvOn(t, storetest.Isolated(t), nil, nil)
	e.must(201, "POST", deployPath, deploymentJSON("a", 1, "nginx"))
	e.must(201, "POST", deployPath, deploymentJSON("b", 1, "nginx"))
	rev := e.rev()
	if err := e.st.Compact(context.Background(), rev); err != nil {
		t.Fatal(err)
	}
	r := e.must(200, "GET", deployPath+"?watch=true&resourceVersion=1", "")
	lines := strings.Split(strings.TrimSpace(string(r.body)), "\n")
	if len(lines) != 1 {
		t.Fatalf("want one ERROR event, got %q", r.body)
	}
	var ev struct {
		Type   string     `json:"type"`
		Object api.Status `json:"object"`
	}
	if err := json.Unmarshal([]byte(lines[0]), &ev); err != nil {
		t.Fatal(err)
	}
	if ev.Type != "ERROR" || ev.Object.Code != http.StatusGone || ev.Object.Reason != api.StatusReasonExpired || ev.Object.Kind != "Status" {
		t.Fatalf("want ERROR 410 Expired, got %s", lines[0])
	}
	if testing.Verbose() {
		t.Log(lines[0])
	}
	if after := e.rev(); after != rev {
		t.Fatalf("store revision moved from %d to %d", rev, after)
	}
}

func TestPanicBecomesInternalErrorStatus(t *testing.T) {
	st := storetest.Store(t)
	e := newEnvOn(t, st, nil, nil)
	s, err := New(Config{Registry: e.reg})
	if err != nil {
		t.Fatal(err)
	}
	var logged strings.Builder
	s.log.SetOutput(&logged)
	s.reg = nil // every registry call now dereferences nil
	req, _ := http.NewRequest("GET", deployPath+"/x", nil)
	rec := httptest.NewRecorder()
	s.Handler().ServeHTTP(rec, req)
	var got api.Status
	if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil {
		t.Fatalf("%v: %s", err, rec.Body.String())
	}
	if rec.Code != 500 || got.Reason != api.StatusReasonInternalError {
		t.Fatalf("want 500 InternalError, got %d %s", rec.Code, rec.Body.String())
	}
	if !strings.Contains(logged.String(), "panic") {
		t.Fatalf("panic not logged: %q", logged.String())
	}
}

func TestNewNeedsARegistry(t *testing.T) {
	if _, err := New(Config{}); err == nil {
		t.Fatal("New without a registry succeeded")
	}
}
