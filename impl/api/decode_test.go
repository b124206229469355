package api

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/resource"
)

const multiDoc = `# leading comment
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: web
        image: nginx:1.27
        resources:
          limits: {cpu: 1, memory: 128Mi}
--- # the service
apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  selector: {app: web}
  ports:
  - port: 80
    targetPort: http
---
---
apiVersion: v1
kind: Namespace
metadata:
  name: prod
`

func TestDecodeManifestsMultiDocYAML(t *testing.T) {
	objs, err := DecodeManifests([]byte(multiDoc))
	require.NoError(t, err)
	require.Len(t, objs, 3)
	d := objs[0].(*Deployment)
	assert.Equal(t, "web", d.Name)
	assert.Equal(t, TypeMeta{Kind: "Deployment", APIVersion: "apps/v1"}, d.TypeMeta)
	assert.Equal(t, resource.MustParse("1"), d.Spec.Template.Spec.Containers[0].Resources.Limits["cpu"])
	s := objs[1].(*Service)
	assert.Equal(t, FromString("http"), s.Spec.Ports[0].TargetPort)
	assert.Equal(t, "prod", Meta(objs[2]).Name)
	for _, o := range objs {
		Default(o)
		assert.NoError(t, Validate(o))
	}
}

func TestDecodeManifestsJSONAndLists(t *testing.T) {
	stream := `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"a"}}
{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"b"}}`
	objs, err := DecodeManifests([]byte(stream))
	require.NoError(t, err)
	require.Len(t, objs, 2)
	assert.Equal(t, "b", Meta(objs[1]).Name)

	list := `apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Pod
  metadata: {name: p}
  spec: {containers: [{name: c, image: busybox}]}
- apiVersion: apps/v1
  kind: ReplicaSet
  metadata: {name: r}
  spec: {selector: {matchLabels: {a: b}}, template: {metadata: {labels: {a: b}}, spec: {containers: [{name: c, image: x}]}}}
`
	objs, err = DecodeManifests([]byte(list))
	require.NoError(t, err)
	require.Len(t, objs, 2)
	assert.IsType(t, &Pod{}, objs[0])
	assert.IsType(t, &ReplicaSet{}, objs[1])

	// Typed lists from `kubectl get -o json` may leave item kinds out.
	typed := `{"apiVersion":"apps/v1","kind":"DeploymentList","metadata":{"resourceVersion":"9"},
		"items":[{"metadata":{"name":"x"},"spec":{"selector":{"matchLabels":{"a":"b"}},
		"template":{"metadata":{"labels":{"a":"b"}},"spec":{"containers":[{"name":"c","image":"i"}]}}}}]}`
	objs, err = DecodeManifests([]byte(typed))
	require.NoError(t, err)
	require.Len(t, objs, 1)
	assert.Equal(t, "Deployment", TypeOf(objs[0]).Kind)

	objs, err = DecodeManifests([]byte("# nothing here\n---\n"))
	require.NoError(t, err)
	assert.Empty(t, objs)
}

func TestDecodeManifestsErrorsNameTheDocument(t *testing.T) {
	ns := "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ok\n"
	for _, tc := range []struct {
		name, input string
		want        []string
	}{
		{"unknown kind", ns + "---\napiVersion: v1\nkind: Widget\nmetadata: {name: w}\n",
			[]string{"document 2 (line 6)", `unknown kind "Widget"`}},
		{"wrong apiVersion", ns + "---\n" + ns + "---\napiVersion: v1\nkind: Deployment\nmetadata: {name: d}\n",
			[]string{"document 3 (line 11)", `no matches for kind "Deployment" in version "v1"`, `"apps/v1"`}},
		{"missing kind", "apiVersion: v1\nmetadata: {name: x}\n", []string{"document 1 (line 1)", `missing "kind"`}},
		{"missing apiVersion", "kind: Pod\nmetadata: {name: x}\n", []string{"document 1", `missing "apiVersion"`}},
		{"unknown field", ns + "---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  replicass: 3\n  template:\n    spec:\n      containers: [{name: c, imagee: x}]\n",
			[]string{"document 2", `Deployment "web"`, `unknown field "spec.replicass"`, `unknown field "spec.template.spec.containers[0].imagee"`}},
		{"duplicate JSON field", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"a","name":"b"}}`,
			[]string{"document 1", `duplicate field "metadata.name"`}},
		{"duplicate field in list item", `{"apiVersion":"v1","kind":"List","items":[{"apiVersion":"v1","kind":"Namespace","kind":"Namespace"}]}`,
			[]string{`duplicate field "items[0].kind"`}},
		{"wrong case field", "apiVersion: v1\nkind: Namespace\nMetadata: {name: x}\n", []string{`unknown field "Metadata"`}},
		{"malformed YAML", ns + "---\nkind: Pod\n  bad: : indent\n", []string{"document 2 (line 6)", "malformed YAML"}},
		{"duplicate key", "apiVersion: v1\nkind: Namespace\nkind: Namespace\n", []string{"document 1", "malformed YAML"}},
		{"type error", "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec: {replicas: three}\n",
			[]string{"json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32"}},
		{"not an object", "- a\n- b\n", []string{"document 1", "got a list"}},
		{"line skips comments", "# header\n\n---\n# about w\n\napiVersion: v1\nkind: Widget\n", []string{"document 1 (line 6)"}},
		{"malformed JSON", `{"kind": "Pod",`, []string{"document 1 (line 1)", "malformed JSON"}},
		{"second JSON bad", "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"a\"}}\n\n{\"kind\": 5}",
			[]string{"document 2 (line 3)", `"kind" must be a string`}},
		{"list item bad", "apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: Pod, metadata: {name: p}}\n- {apiVersion: v1, kind: Gadget}\n",
			[]string{"document 1", "item 1", `unknown kind "Gadget"`}},
		{"list wrong version", "apiVersion: apps/v1\nkind: List\nitems: []\n", []string{`no matches for kind "List" in version "apps/v1"`}},
		{"typed list mixed", `{"apiVersion":"v1","kind":"PodList","items":[{"kind":"Node","apiVersion":"v1"}]}`,
			[]string{"may only hold Pod objects"}},
		{"bad time", "apiVersion: v1\nkind: Namespace\nmetadata: {name: x, creationTimestamp: yesterday}\n", []string{"document 1", `parsing time "yesterday"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			objs, err := DecodeManifests([]byte(tc.input))
			require.Error(t, err)
			assert.Nil(t, objs, "nothing is returned when any document is bad")
			assert.True(t, IsBadRequest(err), "%v", err)
			assert.Equal(t, int32(400), CodeOf(err))
			for _, w := range tc.want {
				assert.Contains(t, err.Error(), w)
			}
		})
	}
}

func TestDecodeSingleBody(t *testing.T) {
	obj, err := Decode("deployments", []byte(`{"metadata":{"name":"x"},"spec":{"replicas":2}}`))
	require.NoError(t, err)
	assert.Equal(t, TypeMeta{Kind: "Deployment", APIVersion: "apps/v1"}, *TypeOf(obj), "type fields filled in")

	obj, err = Decode("deployments/scale", []byte(`{"kind":"Scale","apiVersion":"autoscaling/v1","metadata":{"name":"x"},"spec":{"replicas":5}}`))
	require.NoError(t, err)
	assert.Equal(t, int32(5), obj.(*Scale).Spec.Replicas)

	obj, err = Decode("pods/binding", []byte("apiVersion: v1\nkind: Binding\nmetadata: {name: p}\ntarget: {kind: Node, name: n1}\n"))
	require.NoError(t, err)
	assert.Equal(t, "n1", obj.(*Binding).Target.Name)

	obj, err = Decode("deployments/status", []byte(`{"metadata":{"name":"x"},"status":{"readyReplicas":1}}`))
	require.NoError(t, err)
	assert.Equal(t, int32(1), obj.(*Deployment).Status.ReadyReplicas)

	_, err = Decode("deployments", []byte(`{"apiVersion":"v1","kind":"Deployment"}`))
	assert.Contains(t, err.Error(), "the API version in the data (v1) does not match the expected API version (apps/v1)")
	_, err = Decode("pods", []byte(`{"apiVersion":"v1","kind":"Node"}`))
	assert.Contains(t, err.Error(), "the kind in the data (Node) does not match the expected kind (Pod)")
	_, err = Decode("pods", []byte(`{"spec":{"nodeNmae":"x"}}`))
	assert.Contains(t, err.Error(), `unknown field "spec.nodeNmae"`)
	_, err = Decode("widgets", []byte(`{}`))
	assert.True(t, IsNotFound(err))
	_, err = Decode("pods/logs", []byte(`{}`))
	assert.True(t, IsNotFound(err))
	_, err = Decode("pods", []byte("{}\n{}"))
	assert.True(t, IsBadRequest(err))
	_, err = Decode("pods", nil)
	assert.True(t, IsBadRequest(err))
}

func TestExamplesDecodeAndValidate(t *testing.T) {
	dir := filepath.Join("..", "..", "examples")
	app, err := os.ReadFile(filepath.Join(dir, "my-app.yaml"))
	require.NoError(t, err)
	objs, err := DecodeManifests(app)
	require.NoError(t, err)
	require.Len(t, objs, 1)
	d, ok := objs[0].(*Deployment)
	require.True(t, ok)
	Default(d)
	require.NoError(t, Validate(d))
	assert.Equal(t, "myapp", d.Name)
	assert.Equal(t, "default", d.Namespace)
	assert.Equal(t, map[string]string{"app": "myapp"}, d.Labels)
	assert.Equal(t, int32(3), *d.Spec.Replicas)
	assert.Equal(t, "nginx:1.21.6", d.Spec.Template.Spec.Containers[0].Image)
	assert.Equal(t, int32(80), d.Spec.Template.Spec.Containers[0].Ports[0].ContainerPort)
	assert.True(t, SelectorMatches(d.Spec.Selector, d.Spec.Template.Labels))

	svc, err := os.ReadFile(filepath.Join(dir, "my-service.yaml"))
	require.NoError(t, err)
	objs, err = DecodeManifests(svc)
	require.NoError(t, err)
	require.Len(t, objs, 1)
	s, ok := objs[0].(*Service)
	require.True(t, ok)
	Default(s)
	require.NoError(t, Validate(s))
	assert.Equal(t, "myapp", s.Name)
	assert.Equal(t, map[string]string{"app": "myapp"}, s.Spec.Selector)
	assert.Equal(t, int32(80), s.Spec.Ports[0].Port)
	assert.Equal(t, FromInt32(80), s.Spec.Ports[0].TargetPort)

	both, err := DecodeManifests([]byte(string(app) + "---\n" + string(svc)))
	require.NoError(t, err)
	assert.Len(t, both, 2)
}
