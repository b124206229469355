package api

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fastResources are the bodies Decode serves, one per shape.
var fastResources = []string{"deployments", "pods", "nodes", "services", "endpoints", "replicasets", "namespaces", "deployments/scale", "pods/binding", "deployments/status"}

func newFor(t testing.TB, resource string) (Object, TypeMeta) {
	var (
		o   Object
		err error
	)
	if res, sub, ok := strings.Cut(resource, "/"); ok {
		o, _, err = newSubresourceBody(res, sub)
	} else {
		o, err = New(resource)
	}
	require.NoError(t, err)
	return o, *TypeOf(o)
}

func TestDecodeFastTakesCleanBodiesOnly(t *testing.T) {
	for _, name := range []string{"deployment.json", "pod.json", "node.json", "service.json", "endpoints.json"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		require.NoError(t, err)
		resource := map[string]string{"deployment.json": "deployments", "pod.json": "pods", "node.json": "nodes", "service.json": "services", "endpoints.json": "endpoints"}[name]
		fast, expected := newFor(t, resource)
		ok, strict := decodeFast(b, fast, expected)
		assert.True(t, ok, name)
		assert.Empty(t, strict, name)
		slow, _ := newFor(t, resource)
		slowObj, _, err := decodeSlow(slow, expected, b)
		require.NoError(t, err, name)
		assert.Equal(t, slowObj, fast, name)
	}
	// Unknown and duplicate fields are the caller's to refuse or not.
	for body, want := range map[string]string{
		`{"metadata":{"name":"x"},"spec":{"nodeNmae":"n"}}`:                    `unknown field "spec.nodeNmae"`,
		`{"metadata":{"name":"x","name":"y"}}`:                                 `duplicate field "metadata.name"`,
		`{"metadata":{"labels":{"a":"1","a":"2"}}}`:                            `duplicate field "metadata.labels.a"`,
		`{"Metadata":{"name":"x"}}`:                                            `unknown field "Metadata"`,
		`{"spec":{"containers":[{"name":"a","image":"i","imagee":"j"}]}}`:      `unknown field "spec.containers[0].imagee"`,
		`{"metadata":{"annotations":{"x":"1"}},"spec":{"overheed":{"cpu":1}}}`: `unknown field "spec.overheed"`,
	} {
		o, expected := newFor(t, "pods")
		ok, strict := decodeFast([]byte(body), o, expected)
		assert.True(t, ok, body)
		if assert.Len(t, strict, 1, body) {
			assert.Equal(t, want, strict[0].Error(), body)
		}
	}
	for _, body := range []string{
		`{"metadata":{"name":"x"}} {}`, // two values
		`{"kind":"Node"}`,              // wrong kind
		`{"apiVersion":"apps/v1"}`,     // wrong apiVersion
		`{"metadata":{"name":1}}`,      // type mismatch
		"metadata:\n  name: x\n",       // YAML
	} {
		o, expected := newFor(t, "pods")
		ok, _ := decodeFast([]byte(body), o, expected)
		assert.False(t, ok, body)
		fresh, _ := newFor(t, "pods")
		assert.Equal(t, fresh, o, "a refused body leaves the object as New made it: %s", body)
	}
}

// FuzzDecodeFastMatchesSlow checks that Decode (fast path first) and the
// slow path alone agree on every input: the same object or the same error.
func FuzzDecodeFastMatchesSlow(f *testing.F) {
	for _, name := range []string{"deployment.json", "pod.json", "node.json", "service.json", "endpoints.json"} {
		if b, err := os.ReadFile(filepath.Join("testdata", name)); err == nil {
			for i := range fastResources {
				f.Add(uint8(i), b)
			}
		}
	}
	for _, s := range []string{
		`{"metadata":{"name":"x","name":"y"}}`,
		`{"metadata":{"labels":{"a":"1","a":"2"}}}`,
		`{"Metadata":{}}`, `{"kind":"Scale","spec":{"replicas":3}}`, `{"target":{"name":"n"}}`,
		`{"metadata":{"n\u0061me":"x"}}`, `{"a":"\"}`, `{"metadata":{"name":"x"}}x`, `{]`, `{"spec":{"template":{"spec":{"containers":[{"resources":{"limits":{"cpu":"1"}}}]}}}}`,
	} {
		for i := range fastResources {
			f.Add(uint8(i), []byte(s))
		}
	}
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		resource := fastResources[int(which)%len(fastResources)]
		got, gotStrict, gotErr := DecodeFields(resource, "", data)
		slow, expected := newFor(t, resource)
		want, wantStrict, wantErr := func() (o Object, strict []error, err error) {
			defer func() {
				if r := recover(); r != nil {
					o, strict, err = nil, nil, NewBadRequest("panic")
				}
			}()
			return decodeSlow(slow, expected, data)
		}()
		if fmt.Sprint(gotStrict) != fmt.Sprint(wantStrict) {
			t.Fatalf("DecodeFields strict %v, slow path strict %v", gotStrict, wantStrict)
		}
		if (gotErr == nil) != (wantErr == nil) {
			t.Fatalf("Decode err %v, slow path err %v", gotErr, wantErr)
		}
		if gotErr != nil {
			if gotErr.Error() != wantErr.Error() {
				t.Fatalf("Decode err %q, slow path err %q", gotErr, wantErr)
			}
			return
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("Decode %#v\nslow path %#v", got, want)
		}
	})
}
