package fuzz

import (
	"bytes"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/converge-dev/converge/impl/api"
)

// recoveredPanic is the message DecodeManifests gives a panic it recovered
// from; the user sees a 400, but it is a decoder bug all the same.
const recoveredPanic = "manifest could not be decoded"

// FuzzManifest feeds `kubectl apply -f` input through what the apiserver
// does with it: decode, default, validate; and whatever decodes survives
// Marshal and a second decode. It is the module's one DecodeManifests
// target (it absorbed impl/api's FuzzDecodeManifests and its seeds).
func FuzzManifest(f *testing.F) {
	for _, glob := range []string{"../examples/*.yaml", "../impl/api/testdata/*.json"} {
		addFiles(f, glob)
	}
	f.Add([]byte(`{"apiVersion":"v1","kind":"List","items":[{"apiVersion":"v1","kind":"Pod"}]}`))
	f.Add([]byte("apiVersion: v1\nkind: Node\nstatus: {capacity: {cpu: 1e3}}\n"))
	f.Add([]byte("---\n---\n- [\n"))
	f.Add([]byte("a: &a [*a, *a]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		objs, err := api.DecodeManifests(data)
		if err != nil {
			if objs != nil {
				t.Errorf("decode error %q came with %d objects", err, len(objs))
			}
			wantStatus(t, "decode", err, http.StatusBadRequest)
			if strings.HasPrefix(err.Error(), recoveredPanic) {
				t.Fatalf("decoder panicked (recovered): %v", err)
			}
			return
		}
		for i, obj := range objs {
			raw, err := api.Marshal(obj)
			if err != nil {
				t.Fatalf("object %d: marshal %T: %v", i, obj, err)
			}
			if _, err := api.DecodeManifests(raw); err != nil {
				t.Fatalf("object %d: what decoded does not decode again: %v\n%s", i, err, raw)
			}
			api.Default(obj)
			once, err := api.Marshal(obj)
			if err != nil {
				t.Fatalf("object %d: marshal after Default: %v", i, err)
			}
			api.Default(obj)
			twice, err := api.Marshal(obj)
			if err != nil {
				t.Fatalf("object %d: marshal after second Default: %v", i, err)
			}
			if !bytes.Equal(once, twice) {
				t.Errorf("object %d: Default is not idempotent:\n once: %s\ntwice: %s", i, once, twice)
			}
			if err := api.Validate(obj); err != nil {
				wantStatus(t, "validate", err, http.StatusUnprocessableEntity)
			}
		}
	})
}

// wantStatus fails t unless err is a *api.StatusError with code.
func wantStatus(t *testing.T, what string, err error, code int) {
	t.Helper()
	var se *api.StatusError
	if !errors.As(err, &se) {
		t.Fatalf("%s: error %T %q is not a *api.StatusError", what, err, err)
	}
	if se.Status.Code != int32(code) {
		t.Fatalf("%s: status code %d, want %d: %v", what, se.Status.Code, code, err)
	}
}

// addFiles seeds f with every file matching glob (relative to this
// package), so the fuzzer starts from real manifests and traces.
func addFiles(f *testing.F, glob string) {
	f.Helper()
	paths, err := filepath.Glob(glob)
	if err != nil || len(paths) == 0 {
		f.Fatalf("no seed files match %s (err %v)", glob, err)
	}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
}
