package api

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/resource"
)

// normalize re-encodes JSON through any so key order and spacing vanish.
func normalize(t *testing.T, b []byte) any {
	t.Helper()
	var v any
	require.NoError(t, json.Unmarshal(b, &v), "%s", b)
	return v
}

// The samples are shaped like `kubectl get -o json` output; strict
// decoding then Marshal must reproduce them exactly.
func TestKubernetesSamplesRoundTrip(t *testing.T) {
	for _, tc := range []struct{ file, resource string }{
		{"deployment.json", "deployments"},
		{"pod.json", "pods"},
		{"node.json", "nodes"},
		{"endpoints.json", "endpoints"},
		{"service.json", "services"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", tc.file))
			require.NoError(t, err)
			obj, err := Decode(tc.resource, data)
			require.NoError(t, err)
			out, err := Marshal(obj)
			require.NoError(t, err)
			assert.Equal(t, normalize(t, data), normalize(t, out))

			Default(obj)
			assert.NoError(t, Validate(obj), "a real cluster's object must validate")
		})
	}
}

func TestSampleFieldsLandInTypedFields(t *testing.T) {
	read := func(f string) []byte {
		b, err := os.ReadFile(filepath.Join("testdata", f))
		require.NoError(t, err)
		return b
	}
	obj, err := Decode("deployments", read("deployment.json"))
	require.NoError(t, err)
	d := obj.(*Deployment)
	assert.Equal(t, int32(3), *d.Spec.Replicas)
	assert.Equal(t, FromString("25%"), *d.Spec.Strategy.RollingUpdate.MaxSurge)
	assert.Equal(t, "1042", d.ResourceVersion)
	assert.Equal(t, time.Date(2024, 5, 1, 10, 0, 0, 0, time.UTC), d.CreationTimestamp.UTC())
	assert.True(t, d.Spec.Template.CreationTimestamp.IsZero())
	assert.Equal(t, "MinimumReplicasAvailable", d.Status.Conditions[0].Reason)

	obj, err = Decode("pods", read("pod.json"))
	require.NoError(t, err)
	p := obj.(*Pod)
	cs := p.Status.ContainerStatuses[0]
	require.NotNil(t, cs.State.Running)
	assert.Equal(t, time.Date(2024, 5, 1, 10, 0, 5, 0, time.UTC), cs.State.Running.StartedAt.UTC())
	assert.Equal(t, int32(137), cs.LastTerminationState.Terminated.ExitCode)
	assert.Equal(t, FromInt32(80), p.Spec.Containers[0].ReadinessProbe.HTTPGet.Port)
	assert.True(t, *p.OwnerReferences[0].Controller)
	assert.Equal(t, "10.244.1.7", p.Status.PodIPs[0].IP)
	assert.Equal(t, resource.MustParse("100m"), p.Spec.Containers[0].Resources.Requests["cpu"])

	obj, err = Decode("nodes", read("node.json"))
	require.NoError(t, err)
	n := obj.(*Node)
	assert.Equal(t, TaintEffectNoExecute, n.Spec.Taints[0].Effect)
	assert.Equal(t, resource.MustParse("3800m"), n.Status.Allocatable["cpu"])
	assert.Equal(t, int32(10250), n.Status.DaemonEndpoints.KubeletEndpoint.Port)

	obj, err = Decode("endpoints", read("endpoints.json"))
	require.NoError(t, err)
	ep := obj.(*Endpoints)
	assert.Equal(t, ptrTo("node-1"), ep.Subsets[0].Addresses[0].NodeName)
	assert.Equal(t, "Pod", ep.Subsets[0].Addresses[0].TargetRef.Kind)
	assert.Equal(t, "10.244.2.3", ep.Subsets[0].NotReadyAddresses[0].IP)
}

func TestTimeJSON(t *testing.T) {
	b, err := json.Marshal(Time{})
	require.NoError(t, err)
	assert.Equal(t, "null", string(b))

	ts := NewTime(time.Date(2024, 5, 1, 12, 0, 0, 999, time.FixedZone("x", 3600)))
	b, err = json.Marshal(ts)
	require.NoError(t, err)
	assert.Equal(t, `"2024-05-01T11:00:00Z"`, string(b))

	var back Time
	require.NoError(t, json.Unmarshal(b, &back))
	assert.True(t, back.Equal(&ts))
	require.NoError(t, json.Unmarshal([]byte("null"), &back))
	assert.True(t, back.IsZero())
	assert.Error(t, json.Unmarshal([]byte(`"yesterday"`), &back))
	assert.Error(t, json.Unmarshal([]byte(`12`), &back))

	// Pointer timestamps are omitted when nil; a zero creationTimestamp
	// too (omitzero), as apimachinery writes it since v0.35.
	b, err = json.Marshal(ObjectMeta{Name: "x"})
	require.NoError(t, err)
	assert.JSONEq(t, `{"name":"x"}`, string(b))
	assert.Equal(t, int64(90), Unix(90).Unix())
}

func TestIntOrStringJSON(t *testing.T) {
	for _, tc := range []struct {
		json string
		want IntOrString
	}{
		{`80`, FromInt32(80)},
		{`"http"`, FromString("http")},
		{`"25%"`, FromString("25%")},
	} {
		var v IntOrString
		require.NoError(t, json.Unmarshal([]byte(tc.json), &v))
		assert.Equal(t, tc.want, v)
		b, err := json.Marshal(v)
		require.NoError(t, err)
		assert.Equal(t, tc.json, string(b))
	}
	var v IntOrString
	assert.Error(t, json.Unmarshal([]byte(`1.5`), &v))
	assert.Error(t, json.Unmarshal([]byte(`true`), &v))
	assert.Error(t, json.Unmarshal([]byte(`4294967296`), &v))
}

// Quantities may be numbers (YAML `cpu: 1`) and are served in their
// canonical form, as the real apiserver serves them; one that does not
// parse fails the decode with apimachinery's message.
func TestResourceListAcceptsNumbersAndServesCanonicalForms(t *testing.T) {
	var r ResourceRequirements
	require.NoError(t, json.Unmarshal([]byte(`{"limits":{"cpu":1,"memory":"1Gi"},"requests":{"cpu":0.5,"memory":"1000Mi","ephemeral-storage":"1000"}}`), &r))
	assert.Equal(t, ResourceList{"cpu": resource.MustParse("1"), "memory": resource.MustParse("1Gi")}, r.Limits)
	b, err := Marshal(&Pod{Spec: PodSpec{Containers: []Container{{Name: "c", Resources: r}}}})
	require.NoError(t, err)
	assert.Contains(t, string(b), `"resources":{"limits":{"cpu":"1","memory":"1Gi"},"requests":{"cpu":"500m","ephemeral-storage":"1k","memory":"1000Mi"}}`)
	assert.Error(t, json.Unmarshal([]byte(`{"limits":{"cpu":true}}`), &r))
	err = json.Unmarshal([]byte(`{"limits":{"cpu":"lots"}}`), &r)
	assert.EqualError(t, err, "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'")
}

func TestStatusJSONShape(t *testing.T) {
	err := NewNotFound(GroupResource{Group: "apps", Resource: "deployments"}, "myapp")
	b, mErr := json.Marshal(err.Status)
	require.NoError(t, mErr)
	assert.JSONEq(t, `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",
		"message":"deployments.apps \"myapp\" not found","reason":"NotFound",
		"details":{"name":"myapp","group":"apps","kind":"deployments"},"code":404}`, string(b))
}

func TestWatchEventAndDeleteOptionsJSON(t *testing.T) {
	var ev WatchEvent
	require.NoError(t, json.Unmarshal([]byte(`{"type":"ADDED","object":{"kind":"Pod","apiVersion":"v1","metadata":{"name":"p"}}}`), &ev))
	assert.EqualValues(t, EventAdded, ev.Type)
	obj, err := Decode("pods", ev.Object.Raw)
	require.NoError(t, err)
	assert.Equal(t, "p", Meta(obj).Name)

	var opts DeleteOptions
	require.NoError(t, json.Unmarshal([]byte(`{"kind":"DeleteOptions","apiVersion":"v1","propagationPolicy":"Foreground",
		"preconditions":{"uid":"u1","resourceVersion":"7"},"gracePeriodSeconds":0,"dryRun":["All"]}`), &opts))
	assert.Equal(t, DeletePropagationForeground, *opts.PropagationPolicy)
	assert.EqualValues(t, "u1", *opts.Preconditions.UID)
	assert.Equal(t, int64(0), *opts.GracePeriodSeconds)
	assert.Equal(t, []string{"All"}, opts.DryRun)
}

func TestMarshalFillsTypeMetaWithoutMutating(t *testing.T) {
	d := &Deployment{ObjectMeta: ObjectMeta{Name: "x"}}
	b, err := Marshal(d)
	require.NoError(t, err)
	var got map[string]any
	require.NoError(t, json.Unmarshal(b, &got))
	assert.Equal(t, "Deployment", got["kind"])
	assert.Equal(t, "apps/v1", got["apiVersion"])
	assert.Empty(t, d.Kind, "Marshal must not write to its argument")

	b, err = Marshal(&PodList{Items: []Pod{{ObjectMeta: ObjectMeta{Name: "a"}}}})
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &got))
	assert.Equal(t, "PodList", got["kind"])
	assert.Equal(t, "v1", got["apiVersion"])

	b, err = Marshal(&Scale{Spec: ScaleSpec{Replicas: 2}})
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &got))
	assert.Equal(t, "autoscaling/v1", got["apiVersion"])

	y, err := MarshalYAML(&Namespace{ObjectMeta: ObjectMeta{Name: "prod"}})
	require.NoError(t, err)
	assert.Contains(t, string(y), "kind: Namespace\n")
}

// MicroTime always writes six fractional digits, which kubectl requires of
// eventTime, and, as apimachinery's, reads only that form.
func TestMicroTimeJSON(t *testing.T) {
	b, err := json.Marshal(MicroTime{})
	require.NoError(t, err)
	assert.Equal(t, "null", string(b))
	mt := NewMicroTime(time.Date(2024, 5, 1, 12, 0, 0, 1_500, time.UTC))
	b, err = json.Marshal(mt)
	require.NoError(t, err)
	assert.Equal(t, `"2024-05-01T12:00:00.000001Z"`, string(b))
	var back MicroTime
	require.NoError(t, json.Unmarshal(b, &back))
	assert.True(t, back.Time.Equal(mt.Time))
	assert.Error(t, json.Unmarshal([]byte(`"2024-05-01T12:00:00Z"`), &back))
	assert.Error(t, json.Unmarshal([]byte(`"soon"`), &back))
}
