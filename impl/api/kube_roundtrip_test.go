package api

import (
	"encoding/json"
	"fmt"
	"maps"
	"math/rand"
	"reflect"
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/api/apitesting/fuzzer"
	"k8s.io/apimachinery/pkg/api/resource"
	metafuzzer "k8s.io/apimachinery/pkg/apis/meta/fuzzer"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/randfill"
)

// TestKubernetesObjectsRoundTrip fills k8s.io/api objects of every served
// built-in kind at random (randfill, with apimachinery's own metadata
// fuzzer), writes them as encoding/json does, decodes them strictly into
// converge's types and encodes them back: the JSON must come back as sent,
// every field, every explicit empty value that Kubernetes writes, through
// converge's decoder (strict, sigs.k8s.io/json) and Marshal.
func TestKubernetesObjectsRoundTrip(t *testing.T) {
	f := fuzzer.FuzzerFor(metafuzzer.Funcs, rand.NewSource(1), serializer.NewCodecFactory(runtime.NewScheme())).
		NilChance(0.2).NumElements(0, 2).Funcs(
		// Values that decode: randfill would fill a quantity's or an
		// int-or-string's private fields at random.
		func(q *resource.Quantity, c randfill.Continue) {
			*q = *resource.NewQuantity(c.Int63n(1000), resource.DecimalSI)
		},
		func(v *intstr.IntOrString, c randfill.Continue) {
			if c.Bool() {
				*v = intstr.FromInt32(c.Int31n(100))
			} else {
				*v = intstr.FromString(fmt.Sprint("port-", c.Intn(10)))
			}
		},
	)
	for _, resource := range slices.Sorted(maps.Keys(kubeTypes)) {
		info, ok := LookupResource(resource)
		if !ok {
			t.Fatalf("%s: not served", resource)
		}
		for i := range 100 {
			o := reflect.New(reflect.TypeOf(kubeTypes[resource]).Elem()).Interface()
			f.Fill(o)
			var sent map[string]any
			b, err := json.Marshal(o)
			if err == nil {
				err = json.Unmarshal(b, &sent)
			}
			if err != nil {
				t.Fatal(err)
			}
			sent["apiVersion"], sent["kind"] = info.APIVersion(), info.Kind
			// kube-apiserver never serves a selfLink; converge drops one.
			if md, ok := sent["metadata"].(map[string]any); ok {
				delete(md, "selfLink")
			}
			body, _ := json.Marshal(sent)
			ours, err := Decode(resource, body)
			if err != nil {
				t.Fatalf("%s #%d: %v\n%s", info.Kind, i, err, body)
			}
			back, err := Marshal(ours)
			if err != nil {
				t.Fatal(err)
			}
			var served map[string]any
			if err := json.Unmarshal(back, &served); err != nil {
				t.Fatal(err)
			}
			if d := jsonDiff(info.Kind, sent, served); d != "" {
				t.Fatalf("%s #%d comes back changed: %s\nsent:   %s\nserved: %s", info.Kind, i, d, body, back)
			}
		}
	}
}

// jsonDiff names the first place where got differs from want.
func jsonDiff(path string, want, got any) string {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return fmt.Sprintf("%s: %v became %v", path, want, got)
		}
		for k, v := range w {
			if d := jsonDiff(path+"."+k, v, g[k]); d != "" {
				return d
			}
		}
		for k, v := range g {
			if _, ok := w[k]; !ok {
				return fmt.Sprintf("%s.%s: %v was added", path, k, v)
			}
		}
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return fmt.Sprintf("%s: %v became %v", path, want, got)
		}
		for i := range w {
			if d := jsonDiff(fmt.Sprintf("%s[%d]", path, i), w[i], g[i]); d != "" {
				return d
			}
		}
	default:
		if !reflect.DeepEqual(want, got) {
			return fmt.Sprintf("%s: %#v became %#v", path, want, got)
		}
	}
	return ""
}
