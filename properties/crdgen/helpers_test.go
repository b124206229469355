package crdgen

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"

	"github.com/converge-dev/converge/impl/crd"
)

// The CRDs the properties run over: the example users copy, impl/crd's
// richer widget, a gadget for what both widgets lack, and the widgets'
// second versions.
var crdFiles = []struct{ name, path, version string }{
	{"example-widget", "../../examples/crd/bases/example.com_widgets.yaml", "v1"},
	{"impl-widget", "../../impl/crd/testdata/widget.yaml", "v1"},
	{"gadget", "testdata/gadget-crd.yaml", "v1alpha1"},
	{"example-widget-v1beta1", "../../examples/crd/bases/example.com_widgets.yaml", "v1beta1"}, // spec preserves unknown fields
	{"impl-widget-v1beta1", "../../impl/crd/testdata/widget.yaml", "v1beta1"},
}

// loadCRD reads a CRD, applies the v1 defaults as the apiserver's decoder
// does, checks that the apiserver would accept it, and compiles version.
func loadCRD(t testing.TB, path, version string) *crd.Version {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	c := &apiextensionsv1.CustomResourceDefinition{}
	if err := yaml.UnmarshalStrict(data, c); err != nil {
		t.Fatal(err)
	}
	crd.Default(c)
	if err := crd.PrepareForCreate(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	if errs := crd.Validate(context.Background(), c); len(errs) > 0 {
		t.Fatalf("%s: the apiserver would refuse this CRD: %v", path, errs)
	}
	v, err := crd.Compile(c, version)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func newGen(t testing.TB, v *crd.Version, opts ...Option) *Generator {
	t.Helper()
	g, err := New(v, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// recorder stands in for *testing.T under rapid.Check, for properties
// that are meant to fail: it keeps the failure instead of failing the test.
type recorder struct {
	name   string
	failed bool
	log    strings.Builder
}

func (r *recorder) Helper()                           {}
func (r *recorder) Name() string                      { return r.name }
func (r *recorder) Logf(format string, args ...any)   { fmt.Fprintf(&r.log, format+"\n", args...) }
func (r *recorder) Log(args ...any)                   { fmt.Fprintln(&r.log, args...) }
func (r *recorder) Skipf(format string, args ...any)  { r.Logf(format, args...) }
func (r *recorder) Skip(args ...any)                  { r.Log(args...) }
func (r *recorder) SkipNow()                          {}
func (r *recorder) Errorf(format string, args ...any) { r.failed = true; r.Logf(format, args...) }
func (r *recorder) Error(args ...any)                 { r.failed = true; r.Log(args...) }
func (r *recorder) Fatalf(format string, args ...any) { r.Errorf(format, args...) }
func (r *recorder) Fatal(args ...any)                 { r.Error(args...) }
func (r *recorder) FailNow()                          { r.failed = true }
func (r *recorder) Fail()                             { r.failed = true }
func (r *recorder) Failed() bool                      { return r.failed }

// setFlags sets rapid's command-line flags for one test; a failing
// property run on a recorder must not leave a fail file in testdata.
func setFlags(t *testing.T, kv ...string) {
	t.Helper()
	for i := 0; i < len(kv); i += 2 {
		f := flag.Lookup(kv[i])
		if f == nil {
			t.Fatalf("no flag %s", kv[i])
		}
		old := f.Value.String()
		if err := f.Value.Set(kv[i+1]); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = f.Value.Set(old) })
	}
}

func spec(obj map[string]any) map[string]any {
	s, _ := obj["spec"].(map[string]any)
	return s
}
