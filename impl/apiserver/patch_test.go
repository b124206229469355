package apiserver

import (
	"encoding/json"
	"testing"

	"github.com/converge-dev/converge/impl/api"
)

func decodeJSON(t *testing.T, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatal(err)
	}
	return v
}

func mustEqualJSON(t *testing.T, got any, want string) {
	t.Helper()
	if !jsonEqual(got, decodeJSON(t, want)) {
		g, _ := json.Marshal(got)
		t.Fatalf("got  %s\nwant %s", g, want)
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
	}
	for _, c := range cases {
		ops, err := decodeJSONPatch([]byte(c.patch))
		if err != nil {
			t.Fatalf("%s: %v", c.patch, err)
		}
		got, err := applyJSONPatch(decodeJSON(t, doc), ops)
		if err != nil {
			t.Fatalf("%s: %v", c.patch, err)
		}
		mustEqualJSON(t, got, c.want)
	}
	for _, bad := range []string{
		`[{"op":"test","path":"/d","value":"z"}]`,
		`[{"op":"remove","path":"/nope"}]`,
		`[{"op":"replace","path":"/a/zz","value":1}]`,
		`[{"op":"add","path":"/a/c/7","value":1}]`,
		`[{"op":"move","from":"/a","path":"/a/b/x"}]`,
		`[{"op":"add","path":"/a/b/x","value":1}]`,
	} {
		ops, err := decodeJSONPatch([]byte(bad))
		if err != nil {
			t.Fatalf("%s: %v", bad, err)
		}
		if _, err := applyJSONPatch(decodeJSON(t, doc), ops); err == nil {
			t.Fatalf("%s applied", bad)
		}
	}
}

func TestStrategicMergeByKey(t *testing.T) {
	doc := `{"spec":{"template":{"spec":{"containers":[
		{"name":"a","image":"a:1","ports":[{"containerPort":80,"name":"http"}],"env":[{"name":"X","value":"1"}]},
		{"name":"b","image":"b:1"}]}},
		"ports":[{"port":80,"targetPort":8080}],"tolerations":[{"key":"k"}]},
		"metadata":{"finalizers":["f1","f2"],"labels":{"x":"1","y":"2"}}}`
	cases := []struct{ name, patch, want string }{
		{"image of one container", `{"spec":{"template":{"spec":{"containers":[{"name":"b","image":"b:2"}]}}}}`,
			`{"spec":{"template":{"spec":{"containers":[{"name":"a","image":"a:1","ports":[{"containerPort":80,"name":"http"}],"env":[{"name":"X","value":"1"}]},{"name":"b","image":"b:2"}]}},"ports":[{"port":80,"targetPort":8080}],"tolerations":[{"key":"k"}]},"metadata":{"finalizers":["f1","f2"],"labels":{"x":"1","y":"2"}}}`},
		{"add a container, a port and an env var", `{"spec":{"template":{"spec":{"containers":[{"name":"a","ports":[{"containerPort":443}],"env":[{"name":"Y","value":"2"}]},{"name":"c","image":"c:1"}]}}}}`,
			`{"spec":{"template":{"spec":{"containers":[{"name":"a","image":"a:1","ports":[{"containerPort":80,"name":"http"},{"containerPort":443}],"env":[{"name":"X","value":"1"},{"name":"Y","value":"2"}]},{"name":"b","image":"b:1"},{"name":"c","image":"c:1"}]}},"ports":[{"port":80,"targetPort":8080}],"tolerations":[{"key":"k"}]},"metadata":{"finalizers":["f1","f2"],"labels":{"x":"1","y":"2"}}}`},
		{"delete a container, service port merge, atomic list", `{"$setElementOrder/containers":[{"name":"a"}],"spec":{"template":{"spec":{"containers":[{"name":"b","$patch":"delete"}]}},"ports":[{"port":80,"targetPort":9090}],"tolerations":[{"key":"z"}]}}`,
			`{"spec":{"template":{"spec":{"containers":[{"name":"a","image":"a:1","ports":[{"containerPort":80,"name":"http"}],"env":[{"name":"X","value":"1"}]}]}},"ports":[{"port":80,"targetPort":9090}],"tolerations":[{"key":"z"}]},"metadata":{"finalizers":["f1","f2"],"labels":{"x":"1","y":"2"}}}`},
		{"null deletes, retainKeys, deleteFromPrimitiveList", `{"metadata":{"labels":{"x":null},"$deleteFromPrimitiveList/finalizers":["f1"]},"spec":{"$retainKeys":["template","ports"],"tolerations":[]}}`,
			`{"spec":{"template":{"spec":{"containers":[{"name":"a","image":"a:1","ports":[{"containerPort":80,"name":"http"}],"env":[{"name":"X","value":"1"}]},{"name":"b","image":"b:1"}]}},"ports":[{"port":80,"targetPort":8080}]},"metadata":{"finalizers":["f2"],"labels":{"y":"2"}}}`},
		{"replace a map", `{"metadata":{"labels":{"$patch":"replace","z":"3"}}}`,
			`{"spec":{"template":{"spec":{"containers":[{"name":"a","image":"a:1","ports":[{"containerPort":80,"name":"http"}],"env":[{"name":"X","value":"1"}]},{"name":"b","image":"b:1"}]}},"ports":[{"port":80,"targetPort":8080}],"tolerations":[{"key":"k"}]},"metadata":{"finalizers":["f1","f2"],"labels":{"z":"3"}}}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := strategicMerge(decodeJSON(t, doc).(map[string]any), decodeJSON(t, c.patch).(map[string]any), nil)
			if err != nil {
				t.Fatal(err)
			}
			mustEqualJSON(t, got, c.want)
		})
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
	if len(cs) != 2 || cs[0].Name != "nginx" || cs[0].Image != "nginx:1.29" || len(cs[0].Ports) != 1 || cs[1].Name != "sidecar" {
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

	// A patch carrying the current resourceVersion applies; an apply patch
	// goes to server-side apply with its body intact.
	e.must(200, "PATCH", webPath, `{"metadata":{"resourceVersion":"`+d.ResourceVersion+`"},"spec":{"replicas":1}}`, "Content-Type: "+mergePatchType)
	e.must(200, "PATCH", webPath+"?fieldManager=test&force=true", deploymentJSON("web", 6, "nginx:1.29"), "Content-Type: "+applyPatchType).into(t, &d)
	if *d.Spec.Replicas != 6 {
		t.Fatalf("server-side apply: replicas %d", *d.Spec.Replicas)
	}
}
