package apiserver

import (
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/mergepatch"

	"github.com/converge-dev/converge/impl/api"
)

func decodeJSON(t *testing.T, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("%v: %s", err, s)
	}
	return v
}

func mustEqualJSON(t *testing.T, got []byte, want string) {
	t.Helper()
	if !reflect.DeepEqual(decodeJSON(t, string(got)), decodeJSON(t, want)) {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
}

// mustStatus fails unless err is a Status with code, whose message holds msg.
func mustStatus(t *testing.T, err error, code int, msg string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want %d", code)
	}
	if got := api.CodeOf(err); int(got) != code || !strings.Contains(err.Error(), msg) {
		t.Fatalf("got %d %q, want %d with %q", got, err.Error(), code, msg)
	}
}

func TestJSONPatchOperations(t *testing.T) {
	doc := `{"a":{"b":1,"c":[1,2,3]},"d":"x"}`
	cases := []struct{ patch, want string }{
		{`[{"op":"add","path":"/a/e","value":{"f":true}}]`, `{"a":{"b":1,"c":[1,2,3],"e":{"f":true}},"d":"x"}`},
		{`[{"op":"add","path":"/a/c/1","value":9}]`, `{"a":{"b":1,"c":[1,9,2,3]},"d":"x"}`},
		{`[{"op":"add","path":"/a/c/-","value":9}]`, `{"a":{"b":1,"c":[1,2,3,9]},"d":"x"}`},
		{`[{"op":"remove","path":"/a/c/0"}]`, `{"a":{"b":1,"c":[2,3]},"d":"x"}`},
		{`[{"op":"replace","path":"/d","value":"y"}]`, `{"a":{"b":1,"c":[1,2,3]},"d":"y"}`},
		{`[{"op":"move","from":"/a/b","path":"/b"}]`, `{"a":{"c":[1,2,3]},"b":1,"d":"x"}`},
		{`[{"op":"copy","from":"/a/c","path":"/c"}]`, `{"a":{"b":1,"c":[1,2,3]},"c":[1,2,3],"d":"x"}`},
		{`[{"op":"test","path":"/a/b","value":1},{"op":"remove","path":"/d"}]`, `{"a":{"b":1,"c":[1,2,3]}}`},
		{`[{"op":"add","path":"/a~1b","value":0}]`, `{"a":{"b":1,"c":[1,2,3]},"a/b":0,"d":"x"}`},
		// Negative indices count from the end, as kube-apiserver's
		// json-patch allows (k8s.io/apiserver handlers/rest_test.go
		// TestJSONPatch "valid-negative-index-patch").
		{`[{"op":"remove","path":"/a/c/-1"}]`, `{"a":{"b":1,"c":[1,2]},"d":"x"}`},
		{`[{"op":"test","path":"/a/c/-3","value":1}]`, doc},
		// kube-apiserver's json-patch (v4) lets replace set a key its
		// object lacks (k8s.io/apiserver handlers/rest_test.go
		// "replace-missing-path-allowed"); kubectl rollout undo replaces
		// /metadata/annotations whether or not there are any.
		{`[{"op":"replace","path":"/a/zz","value":1}]`, `{"a":{"b":1,"c":[1,2,3],"zz":1},"d":"x"}`},
		{`[{"op":"replace","path":"/d","value":"y"},{"op":"replace","path":"/e~1f","value":{}},{"op":"add","path":"/e~1f/g","value":2}]`,
			`{"a":{"b":1,"c":[1,2,3]},"d":"y","e/f":{"g":2}}`},
	}
	for _, c := range cases {
		got, err := applyJSONPatch([]byte(doc), []byte(c.patch))
		if err != nil {
			t.Fatalf("%s: %v", c.patch, err)
		}
		mustEqualJSON(t, got, c.want)
	}
	// An operation that does not apply is kube-apiserver's 422, with its
	// generic message.
	for _, bad := range []string{
		`[{"op":"test","path":"/d","value":"z"}]`,
		`[{"op":"remove","path":"/nope"}]`,
		// A replace still needs its parent, and an index in range.
		`[{"op":"replace","path":"/zz/a","value":1}]`,
		`[{"op":"replace","path":"/a/c/3","value":1}]`,
		`[{"op":"replace","path":"/a/zz","value":1},{"op":"test","path":"/a/zz","value":2}]`,
		`[{"op":"add","path":"/a/c/7","value":1}]`,
		`[{"op":"remove","path":"/a/c/-4"}]`,
		`[{"op":"move","from":"/a","path":"/a/b/x"}]`,
		`[{"op":"add","path":"/a/b/x","value":1}]`,
	} {
		_, err := applyJSONPatch([]byte(doc), []byte(bad))
		mustStatus(t, err, http.StatusUnprocessableEntity, "the server rejected our request due to an error in our request")
		if api.ReasonOf(err) != api.StatusReasonInvalid {
			t.Fatalf("%s: reason %q", bad, api.ReasonOf(err))
		}
	}
	// A patch that does not decode is 400.
	for _, bad := range []string{`{"op":"add"}`, `[{"op":"frob","path":"/a"}]`, `[{"op":"add","path":"/a"}]`, `[{"op":"move","path":"/a"}]`} {
		mustStatus(t, checkPatchSyntax(jsonPatchType, []byte(bad)), http.StatusBadRequest, "")
	}
}

// TestJSONPatchLimits: kube-apiserver's bounds on operations (413) and on
// what copies may add (422).
func TestJSONPatchLimits(t *testing.T) {
	ops := strings.TrimSuffix(strings.Repeat(`{"op":"test","path":"/a","value":1},`, maxJSONPatchOps+1), ",")
	mustStatus(t, checkPatchSyntax(jsonPatchType, []byte("["+ops+"]")), http.StatusRequestEntityTooLarge,
		fmt.Sprintf("The allowed maximum operations in a JSON patch is %d, got %d", maxJSONPatchOps, maxJSONPatchOps+1))
	ops = strings.TrimSuffix(strings.Repeat(`{"op":"test","path":"/a","value":1},`, maxJSONPatchOps), ",")
	if err := checkPatchSyntax(jsonPatchType, []byte("["+ops+"]")); err != nil {
		t.Fatalf("%d operations: %v", maxJSONPatchOps, err)
	}

	doc := `{"a":"` + strings.Repeat("x", 1<<20) + `"}`
	copies := `[{"op":"copy","from":"/a","path":"/b"},{"op":"copy","from":"/a","path":"/c"}]`
	if _, err := applyJSONPatch([]byte(doc), []byte(copies)); err != nil {
		t.Fatalf("2 MiB of copies: %v", err)
	}
	copies = `[{"op":"copy","from":"/a","path":"/b"},{"op":"copy","from":"/a","path":"/c"},{"op":"copy","from":"/a","path":"/d"}]`
	_, err := applyJSONPatch([]byte(doc), []byte(copies))
	mustStatus(t, err, http.StatusUnprocessableEntity, "the server rejected our request")
}

func TestMergePatch(t *testing.T) {
	doc := `{"metadata":{"name":"a","labels":{"x":"1","y":"2"}},"spec":{"replicas":1,"template":{"spec":{"containers":[{"name":"c","image":"c:1"}]}}}}`
	got, err := applyPatch(mergePatchType, "deployments", []byte(doc),
		[]byte(`{"metadata":{"labels":{"x":null,"z":"3"}},"spec":{"template":{"spec":{"containers":[{"name":"d"}]}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	// Lists are replaced whole (RFC 7386), null deletes.
	mustEqualJSON(t, got, `{"metadata":{"name":"a","labels":{"y":"2","z":"3"}},"spec":{"replicas":1,"template":{"spec":{"containers":[{"name":"d"}]}}}}`)
	for _, bad := range []string{`[1]`, `"x"`, `null`, `{"a":`} {
		mustStatus(t, checkPatchSyntax(mergePatchType, []byte(bad)), http.StatusBadRequest, "")
	}
	mustStatus(t, checkPatchSyntax(mergePatchType, []byte(`[1]`)), http.StatusBadRequest, "error decoding patch")
	mustStatus(t, checkPatchSyntax(strategicPatchType, []byte(`{"a":`)), http.StatusBadRequest, "invalid JSON patch")
}

// smpCase is one strategic merge patch on a document of resource.
type smpCase struct {
	name, resource, doc, patch, want string
}

const (
	smpDeployment = `{"metadata":{"name":"web","finalizers":["f1","f2"],"labels":{"x":"1","y":"2"}},"spec":{"template":{"spec":{
		"containers":[
			{"name":"a","image":"a:1","ports":[{"containerPort":80,"name":"http"}],"env":[{"name":"X","value":"1"},{"name":"Y","value":"2"}]},
			{"name":"b","image":"b:1"}],
		"imagePullSecrets":[{"name":"one"}],
		"tolerations":[{"key":"k","operator":"Exists"}],
		"volumes":[{"name":"v","emptyDir":{}}]}}}}`
	smpService = `{"metadata":{"name":"s"},"spec":{"ports":[{"port":80,"targetPort":8080},{"port":443,"targetPort":8443}]}}`
)

// TestStrategicMergePatch: the merge keys, strategies and directives of
// k8s.io/api's struct tags, through k8s.io/apimachinery's strategicpatch.
// A merged list has the patch's elements first, in the patch's order, and
// then the others (unless $setElementOrder says otherwise).
func TestStrategicMergePatch(t *testing.T) {
	// withSpec is smpDeployment with its pod spec's fields replaced.
	withSpec := func(old, new string) string {
		t.Helper()
		if !strings.Contains(smpDeployment, old) {
			t.Fatalf("%q not in the document", old)
		}
		return strings.Replace(smpDeployment, old, new, 1)
	}
	containers := `{"name":"a","image":"a:1","ports":[{"containerPort":80,"name":"http"}],"env":[{"name":"X","value":"1"},{"name":"Y","value":"2"}]},
			{"name":"b","image":"b:1"}`
	cases := []smpCase{
		{"image of one container", "deployments", smpDeployment,
			`{"spec":{"template":{"spec":{"containers":[{"name":"b","image":"b:2"}]}}}}`,
			withSpec(`"b:1"`, `"b:2"`)},
		{"container ports by containerPort, env by name, a new container", "deployments", smpDeployment,
			`{"spec":{"template":{"spec":{"containers":[{"name":"a","ports":[{"containerPort":80,"protocol":"TCP"},{"containerPort":443}],"env":[{"name":"Y","value":"3"}]},{"name":"c","image":"c:1"}]}}}}`,
			withSpec(containers, `{"name":"a","image":"a:1","ports":[{"containerPort":80,"name":"http","protocol":"TCP"},{"containerPort":443}],"env":[{"name":"X","value":"1"},{"name":"Y","value":"3"}]},
			{"name":"c","image":"c:1"},{"name":"b","image":"b:1"}`)},
		{"delete a container and an env var", "deployments", smpDeployment,
			`{"spec":{"template":{"spec":{"containers":[{"name":"b","$patch":"delete"},{"name":"a","env":[{"name":"X","$patch":"delete"}]}]}}}}`,
			withSpec(containers, `{"name":"a","image":"a:1","ports":[{"containerPort":80,"name":"http"}],"env":[{"name":"Y","value":"2"}]}`)},
		{"$setElementOrder puts containers in its order", "deployments", smpDeployment,
			`{"spec":{"template":{"spec":{"$setElementOrder/containers":[{"name":"b"},{"name":"a"}],"containers":[{"name":"b","image":"b:2"}]}}}}`,
			withSpec(containers, `{"name":"b","image":"b:2"},{"name":"a","image":"a:1","ports":[{"containerPort":80,"name":"http"}],"env":[{"name":"X","value":"1"},{"name":"Y","value":"2"}]}`)},
		{"imagePullSecrets merge by name", "deployments", smpDeployment,
			`{"spec":{"template":{"spec":{"imagePullSecrets":[{"name":"two"}]}}}}`,
			withSpec(`[{"name":"one"}]`, `[{"name":"two"},{"name":"one"}]`)},
		{"tolerations are atomic", "deployments", smpDeployment,
			`{"spec":{"template":{"spec":{"tolerations":[{"key":"z","operator":"Exists"}]}}}}`,
			withSpec(`{"key":"k","operator":"Exists"}`, `{"key":"z","operator":"Exists"}`)},
		{"$retainKeys on a volume drops its old source", "deployments", smpDeployment,
			`{"spec":{"template":{"spec":{"volumes":[{"name":"v","$retainKeys":["configMap","name"],"configMap":{"name":"cm"}}]}}}}`,
			withSpec(`{"name":"v","emptyDir":{}}`, `{"name":"v","configMap":{"name":"cm"}}`)},
		{"finalizers merge as a set, $deleteFromPrimitiveList removes", "deployments", smpDeployment,
			`{"metadata":{"finalizers":["f3","f1"],"$deleteFromPrimitiveList/finalizers":["f2"]}}`,
			strings.Replace(smpDeployment, `["f1","f2"]`, `["f3","f1"]`, 1)},
		{"null deletes, $patch: replace replaces a map", "deployments", smpDeployment,
			`{"metadata":{"labels":{"$patch":"replace","z":"3"},"finalizers":null}}`,
			strings.Replace(smpDeployment, `"finalizers":["f1","f2"],"labels":{"x":"1","y":"2"}`, `"labels":{"z":"3"}`, 1)},
		{"service ports merge by port", "services", smpService,
			`{"spec":{"ports":[{"port":443,"targetPort":9443}]}}`,
			`{"metadata":{"name":"s"},"spec":{"ports":[{"port":80,"targetPort":8080},{"port":443,"targetPort":9443}]}}`},
		{"service account secrets merge by name", "serviceaccounts", `{"metadata":{"name":"sa"},"secrets":[{"name":"s1"}]}`,
			`{"secrets":[{"name":"s2"}]}`,
			`{"metadata":{"name":"sa"},"secrets":[{"name":"s2"},{"name":"s1"}]}`},
		{"node podCIDRs merge as a set", "nodes", `{"metadata":{"name":"n"},"spec":{"podCIDRs":["10.0.0.0/24"]}}`,
			`{"spec":{"podCIDRs":["10.0.1.0/24"]}}`,
			`{"metadata":{"name":"n"},"spec":{"podCIDRs":["10.0.1.0/24","10.0.0.0/24"]}}`},
		{"pod IPs merge by ip", "pods/status", `{"metadata":{"name":"p"},"status":{"podIPs":[{"ip":"10.0.0.1"}]}}`,
			`{"status":{"podIPs":[{"ip":"fd00::1"}]}}`,
			`{"metadata":{"name":"p"},"status":{"podIPs":[{"ip":"fd00::1"},{"ip":"10.0.0.1"}]}}`},
		{"a scale's spec", "deployments/scale", `{"metadata":{"name":"web"},"spec":{"replicas":2},"status":{"replicas":2}}`,
			`{"spec":{"replicas":5}}`,
			`{"metadata":{"name":"web"},"spec":{"replicas":5},"status":{"replicas":2}}`},
		{"a null patch changes nothing", "deployments", smpDeployment, `null`, smpDeployment},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if err := checkPatchSyntax(strategicPatchType, []byte(c.patch)); err != nil {
				t.Fatal(err)
			}
			got, err := applyPatch(strategicPatchType, c.resource, []byte(c.doc), []byte(c.patch))
			if err != nil {
				t.Fatal(err)
			}
			mustEqualJSON(t, got, c.want)
		})
	}
}

// TestStrategicMergePatchErrors: kube-apiserver's Statuses for a strategic
// merge the library refuses (interpretStrategicMergePatchError), and
// converge's 422 where kube-apiserver answers 500.
func TestStrategicMergePatchErrors(t *testing.T) {
	cases := []struct {
		name, patch string
		code        int
		msg         string
	}{
		{"$retainKeys not a list", `{"spec":{"template":{"spec":{"volumes":[{"name":"v","$retainKeys":"name"}]}}}}`,
			400, "invalid patch format of retainKeys"},
		{"a field outside $retainKeys", `{"spec":{"template":{"spec":{"volumes":[{"name":"v","$retainKeys":["name"],"configMap":{"name":"cm"}}]}}}}`,
			400, "invalid patch format of retainKeys"},
		{"a list element without its merge key", `{"spec":{"template":{"spec":{"containers":[{"image":"x"}]}}}}`,
			422, "does not contain declared merge key: name"},
		{"an unknown $patch", `{"spec":{"template":{"$patch":"frob"}}}`,
			422, "unknown patch type: frob"},
		{"$setElementOrder against the patch's order", `{"spec":{"template":{"spec":{"$setElementOrder/containers":[{"name":"a"},{"name":"b"}],"containers":[{"name":"b","image":"b:2"},{"name":"a","image":"a:2"}]}}}}`,
			422, "doesn't match $setElementOrder list"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := applyPatch(strategicPatchType, "deployments", []byte(smpDeployment), []byte(c.patch))
			mustStatus(t, err, c.code, c.msg)
		})
	}
	for _, c := range []struct {
		err  error
		code int
		msg  string
	}{
		{mergepatch.ErrBadJSONDoc, 400, mergepatch.ErrBadJSONDoc.Error()},
		{mergepatch.ErrBadPatchFormatForPrimitiveList, 400, mergepatch.ErrBadPatchFormatForPrimitiveList.Error()},
		{mergepatch.ErrBadPatchFormatForRetainKeys, 400, mergepatch.ErrBadPatchFormatForRetainKeys.Error()},
		{mergepatch.ErrBadPatchFormatForSetElementOrderList, 400, mergepatch.ErrBadPatchFormatForSetElementOrderList.Error()},
		{mergepatch.ErrUnsupportedStrategicMergePatchFormat, 400, mergepatch.ErrUnsupportedStrategicMergePatchFormat.Error()},
		{mergepatch.ErrNoListOfLists, 422, "the server rejected our request due to an error in our request"},
		{mergepatch.ErrPatchContentNotMatchRetainKeys, 422, "the server rejected our request due to an error in our request"},
		{fmt.Errorf("anything else"), 422, "anything else"},
	} {
		mustStatus(t, strategicPatchError(c.err), c.code, c.msg)
	}
}

// TestStrategicSchemaForEveryPatchableKind: every resource and subresource
// that takes PATCH has a k8s.io/api type for its strategic merges, and it
// is the type of the kind served (name, group and version).
func TestStrategicSchemaForEveryPatchableKind(t *testing.T) {
	check := func(path, kind, group, version string) {
		t.Helper()
		typ, ok := strategicSchemaTypes[kind]
		if !ok {
			t.Errorf("%s (%s) takes PATCH but has no strategic merge schema type", path, kind)
			return
		}
		if _, ok := strategicSchema(path); !ok {
			t.Errorf("strategicSchema(%q) found nothing", path)
		}
		groupDir := "core"
		if group != "" {
			groupDir, _, _ = strings.Cut(group, ".")
		}
		rt := reflect.TypeOf(typ)
		want := "k8s.io/api/" + groupDir + "/" + version
		if group == api.APIExtensionsGroup {
			want = "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/" + version // its types live in its own module
		}
		if rt.Name() != kind || rt.PkgPath() != want {
			t.Errorf("%s: schema type %s.%s, want %s.%s", path, rt.PkgPath(), rt.Name(), want, kind)
		}
	}
	checked := 0
	for _, r := range api.Resources() {
		if hasVerb(r.Verbs, "patch") {
			check(r.Resource, r.Kind, r.Group, r.Version)
			checked++
		}
		for _, s := range r.Subresources {
			if hasVerb(s.Verbs, "patch") {
				check(r.Resource+"/"+s.Name, s.Kind, s.Group, s.Version)
				checked++
			}
		}
	}
	if checked < 20 {
		t.Fatalf("only %d patchable resources and subresources", checked)
	}
	if _, ok := strategicSchema("bindings"); ok {
		t.Fatal("bindings take no PATCH, yet have a schema")
	}
	if _, ok := strategicSchema("frobs"); ok {
		t.Fatal("an unknown resource has a schema")
	}
}

func hasVerb(verbs []string, v string) bool {
	for _, x := range verbs {
		if x == v {
			return true
		}
	}
	return false
}

// patchBadRequests are TestBadRequestsAreRefusedWithoutWriting's patches.
func patchBadRequests() []badRequest {
	smp := []string{"Content-Type: " + strategicPatchType}
	return []badRequest{
		{name: "strategic patch with $retainKeys not a list", method: "PATCH", path: webPath, body: `{"spec":{"strategy":{"$retainKeys":"type"}}}`,
			hdr: smp, code: 400, reason: api.StatusReasonBadRequest, msg: "invalid patch format of retainKeys"},
		{name: "strategic patch with an unknown $patch", method: "PATCH", path: webPath, body: `{"spec":{"$patch":"frob"}}`,
			hdr: smp, code: 422, reason: api.StatusReasonInvalid, msg: "unknown patch type: frob"},
		{name: "strategic patch not an object", method: "PATCH", path: webPath, body: `[1]`,
			hdr: smp, code: 400, reason: api.StatusReasonBadRequest, msg: "cannot unmarshal array"},
		{name: "merge patch not an object", method: "PATCH", path: webPath, body: `[1]`,
			hdr: []string{"Content-Type: " + mergePatchType}, code: 400, reason: api.StatusReasonBadRequest, msg: "error decoding patch"},
		{name: "json-patch index out of bounds", method: "PATCH", path: webPath, body: `[{"op":"remove","path":"/metadata/labels/app"},{"op":"remove","path":"/spec/template/spec/containers/-2"}]`,
			hdr: []string{"Content-Type: " + jsonPatchType}, code: 422, reason: api.StatusReasonInvalid, msg: "the server rejected our request due to an error in our request"},
		{name: "json-patch on the scale subresource", method: "PATCH", path: webPath + "/scale", body: `[{"op":"test","path":"/spec/replicas","value":99}]`,
			hdr: []string{"Content-Type: " + jsonPatchType}, code: 422, reason: api.StatusReasonInvalid},
	}
}

func TestPatchesOverHTTP(t *testing.T) {
	e := newEnv(t)
	e.must(201, "POST", deployPath, deploymentJSON("web", 2, "nginx:1.27"))
	var d api.Deployment

	e.must(200, "PATCH", webPath, `{"spec":{"replicas":3},"metadata":{"labels":{"tier":"front"}}}`, "Content-Type: "+mergePatchType).into(t, &d)
	if *d.Spec.Replicas != 3 || d.Labels["tier"] != "front" || d.Labels["app"] != "web" {
		t.Fatalf("merge patch: %+v %v", *d.Spec.Replicas, d.Labels)
	}

	e.must(200, "PATCH", webPath, `[{"op":"test","path":"/spec/replicas","value":3},{"op":"replace","path":"/spec/template/spec/containers/0/image","value":"nginx:1.28"},{"op":"remove","path":"/metadata/labels/tier"}]`,
		"Content-Type: "+jsonPatchType).into(t, &d)
	if d.Spec.Template.Spec.Containers[0].Image != "nginx:1.28" || d.Labels["tier"] != "" {
		t.Fatalf("json patch: %s %v", d.Spec.Template.Spec.Containers[0].Image, d.Labels)
	}

	// kubectl set image: a strategic patch naming the container.
	e.must(200, "PATCH", webPath, `{"spec":{"template":{"spec":{"containers":[{"name":"sidecar","image":"busybox:1"},{"name":"nginx","image":"nginx:1.29"}]}}}}`,
		"Content-Type: "+strategicPatchType).into(t, &d)
	cs := d.Spec.Template.Spec.Containers
	if len(cs) != 2 || cs[0].Name != "sidecar" || cs[1].Name != "nginx" || cs[1].Image != "nginx:1.29" || len(cs[1].Ports) != 1 {
		t.Fatalf("strategic patch: %+v", cs)
	}
	e.must(200, "PATCH", webPath, `{"spec":{"template":{"spec":{"containers":[{"name":"sidecar","$patch":"delete"}]}}}}`,
		"Content-Type: "+strategicPatchType).into(t, &d)
	if len(d.Spec.Template.Spec.Containers) != 1 {
		t.Fatalf("strategic delete: %+v", d.Spec.Template.Spec.Containers)
	}
	if d.Generation != 5 {
		t.Fatalf("generation %d after four spec changes", d.Generation)
	}

	// Finalizers merge as a set (the patch's first); a JSON patch may
	// index from the end.
	e.must(200, "PATCH", webPath, `{"metadata":{"finalizers":["example.com/a"]}}`, "Content-Type: "+strategicPatchType)
	e.must(200, "PATCH", webPath, `{"metadata":{"finalizers":["example.com/b"]}}`, "Content-Type: "+strategicPatchType).into(t, &d)
	if !reflect.DeepEqual(d.Finalizers, []string{"example.com/b", "example.com/a"}) {
		t.Fatalf("finalizers after two strategic patches: %v", d.Finalizers)
	}
	e.must(200, "PATCH", webPath, `[{"op":"test","path":"/metadata/finalizers/-1","value":"example.com/a"},{"op":"remove","path":"/metadata/finalizers/-1"}]`,
		"Content-Type: "+jsonPatchType).into(t, &d)
	if !reflect.DeepEqual(d.Finalizers, []string{"example.com/b"}) {
		t.Fatalf("finalizers after removing the last: %v", d.Finalizers)
	}
	e.must(200, "PATCH", webPath, `{"metadata":{"$deleteFromPrimitiveList/finalizers":["example.com/b"]}}`, "Content-Type: "+strategicPatchType).into(t, &d)
	if len(d.Finalizers) != 0 {
		t.Fatalf("finalizers after $deleteFromPrimitiveList: %v", d.Finalizers)
	}

	// The scale subresource takes a strategic patch on its Scale.
	var sc api.Scale
	e.must(200, "PATCH", webPath+"/scale", `{"spec":{"replicas":4}}`, "Content-Type: "+strategicPatchType).into(t, &sc)
	if sc.Spec.Replicas != 4 {
		t.Fatalf("scale: %+v", sc.Spec)
	}

	// A patch carrying the current resourceVersion applies; an apply patch
	// goes to server-side apply with its body intact.
	e.must(200, "GET", webPath, "").into(t, &d)
	e.must(200, "PATCH", webPath, `{"metadata":{"resourceVersion":"`+d.ResourceVersion+`"},"spec":{"replicas":1}}`, "Content-Type: "+mergePatchType)
	e.must(200, "PATCH", webPath+"?fieldManager=test&force=true", deploymentJSON("web", 6, "nginx:1.29"), "Content-Type: "+applyPatchType).into(t, &d)
	if *d.Spec.Replicas != 6 {
		t.Fatalf("server-side apply: replicas %d", *d.Spec.Replicas)
	}
}
