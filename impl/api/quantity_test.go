package api

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"pgregory.net/rapid"
)

// quantityTexts are quantities as users write them: canonical or not,
// small or beyond an int64 (which apimachinery keeps as a decimal behind
// a pointer), binary, decimal or with an exponent.
var quantityTexts = []string{
	"0", "1", "100m", "0.5", "1.5", "1000", "1k", "1e3", "1E-3", "01", "+1", "-1", "1n", "0.1m",
	"64Mi", "1000Mi", "1.5Gi", "0.5Ki", "128974848", "8Ei", "9223372036854775808", "123456789012345678901234567890",
}

// setQuantities gives every Quantity reachable from v (which rapid leaves
// zero: its amount is unexported) one of quantityTexts, as parsed.
func setQuantities(t *rapid.T, v reflect.Value) {
	walk(v, func(v reflect.Value) bool {
		if v.Type() != quantityType {
			return true
		}
		v.Set(reflect.ValueOf(resource.MustParse(rapid.SampledFrom(quantityTexts).Draw(t, "quantity"))))
		return false
	})
}

// A quantity is served as the real apiserver serves it: in its canonical
// form, which Canonicalize reproduces exactly.
func TestQuantitiesRoundTripAsUpstreams(t *testing.T) {
	for _, text := range quantityTexts {
		p := &Pod{TypeMeta: TypeMeta{Kind: "Pod", APIVersion: "v1"}, Spec: PodSpec{Containers: []Container{{Name: "c", Resources: ResourceRequirements{
			Requests: ResourceList{corev1.ResourceCPU: resource.MustParse(text)}}}}}}
		want, err := json.Marshal(p)
		require.NoError(t, err)
		got, err := Marshal(p)
		require.NoError(t, err)
		assert.Equal(t, string(want), string(got), text)

		var back Pod
		require.NoError(t, json.Unmarshal(got, &back))
		require.True(t, Canonicalize(p), text)
		assert.True(t, reflect.DeepEqual(&back, p), "%s: canonicalized %#v, decoded %#v", text, p.Spec.Containers[0].Resources, back.Spec.Containers[0].Resources)
	}
	for text, canonical := range map[string]string{"0.5": "500m", "1000": "1k", "1.5Gi": "1536Mi", "1000Mi": "1000Mi", "1e3": "1e3", "0.1m": "100u"} {
		b, err := Marshal(&Node{Status: NodeStatus{Capacity: ResourceList{corev1.ResourceCPU: resource.MustParse(text)}}})
		require.NoError(t, err)
		assert.Contains(t, string(b), `"capacity":{"cpu":"`+canonical+`"}`, text)
	}
}

// A copy's quantities are its own: apimachinery's arithmetic writes
// through the decimal a large or fractional quantity keeps behind a
// pointer, which a shallow copy would share.
func TestDeepCopyDoesNotShareQuantities(t *testing.T) {
	size := resource.MustParse("1.5Gi")
	p := &Pod{Spec: PodSpec{
		Containers: []Container{{Name: "c", Resources: ResourceRequirements{Limits: ResourceList{corev1.ResourceMemory: resource.MustParse("1.5Gi")}}}},
		Volumes:    []corev1.Volume{{Name: "v", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{SizeLimit: &size}}}},
	}}
	cp := DeepCopy(p)
	require.Equal(t, p, cp)

	q := cp.Spec.Containers[0].Resources.Limits[corev1.ResourceMemory]
	q.Add(resource.MustParse("1Gi"))
	cp.Spec.Volumes[0].EmptyDir.SizeLimit.Add(resource.MustParse("1Gi"))

	orig := p.Spec.Containers[0].Resources.Limits[corev1.ResourceMemory]
	assert.Equal(t, "1536Mi", orig.String())
	assert.Equal(t, "1536Mi", p.Spec.Volumes[0].EmptyDir.SizeLimit.String())
	assert.Equal(t, "2560Mi", q.String())
}
