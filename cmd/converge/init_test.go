package main

import (
	"bytes"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// kubebuilderTree writes a kubebuilder-shaped project to a temp dir: the
// PROJECT file, api/v1, a CRD with free-form image fields and one reconciler
// with kubebuilder's fields and one of its own.
func kubebuilderTree(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"PROJECT": `domain: example.com
layout:
- go.kubebuilder.io/v4
projectName: widgets
repo: example.com/widgets
resources:
- api:
    crdVersion: v1
    namespaced: true
  controller: true
  domain: example.com
  group: apps.tools
  kind: Widget
  path: example.com/widgets/api/v1
  version: v1
- controller: true
  group: apps
  kind: Deployment
  path: k8s.io/api/apps/v1
  version: v1
version: "3"
`,
		"api/v1/widget_types.go": "package v1\n",
		"config/crd/bases/apps.tools.example.com_widgets.yaml": `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.apps.tools.example.com
spec:
  group: apps.tools.example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget, listKind: WidgetList}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              image: {type: string}
              tier: {type: string, enum: [a, b]}
              pullPolicy: {type: string}
              sidecars:
                type: array
                items:
                  type: object
                  properties:
                    sidecarImage: {type: string}
              pinnedImage: {type: string, enum: ["nginx:1.27"]}
`,
		"internal/controller/widget_controller.go": `package controller

import (
	"context"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/record"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

type WidgetReconciler struct {
	client.Client
	Scheme   *runtime.Scheme
	Recorder record.EventRecorder
	Region   string
}

func (r *WidgetReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	return ctrl.Result{}, nil
}

func (r *WidgetReconciler) SetupWithManager(mgr ctrl.Manager) error { return nil }

type helper struct{}
`,
		"internal/controller/suite_test.go": "package controller\n\nimport \"testing\"\n\nfunc TestControllers(t *testing.T) {}\n",
	}
	for name, src := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func runConverge(args ...string) (stdout, stderr string, code int) {
	var out, errb bytes.Buffer
	code = run(args, &out, &errb)
	return out.String(), errb.String(), code
}

func TestInitWritesACheckOperatorTest(t *testing.T) {
	dir := kubebuilderTree(t)
	out, errs, code := runConverge("init", "--dir", dir)
	if code != 0 {
		t.Fatalf("converge init: exit %d: %s", code, errs)
	}
	for _, want := range []string{"CheckOperator over WidgetReconciler", "Region are left zero", "go test ./internal/controller -run TestConverge"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	src, err := os.ReadFile(filepath.Join(dir, "internal/controller/converge_test.go"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := parser.ParseFile(token.NewFileSet(), "converge_test.go", src, 0); err != nil {
		t.Fatalf("generated test does not parse: %v\n%s", err, src)
	}
	for _, want := range []string{
		"package controller",
		`appstoolsv1 "example.com/widgets/api/v1"`,
		"_ = appstoolsv1.AddToScheme(scheme)",
		"func TestMain(m *testing.M) { properties.Main(m) }",
		`CRDs:   "../../config/crd/bases"`,
		`Recorder: mgr.GetEventRecorderFor("widgetreconciler")`,
		`"widgets": {crdgen.WithField("spec.image", convergeImages), crdgen.WithField("spec.sidecars[*].sidecarImage", convergeImages)}`,
		`"nginx:1.27"`,
	} {
		if !strings.Contains(string(src), want) {
			t.Errorf("generated test lacks %q:\n%s", want, src)
		}
	}
	for _, unwanted := range []string{"k8s.io/api/apps/v1", "helper{", "pinnedImage", "pullPolicy"} {
		if strings.Contains(string(src), unwanted) {
			t.Errorf("generated test has %q:\n%s", unwanted, src)
		}
	}
}

func TestInitRefusesToOverwriteWithoutForce(t *testing.T) {
	dir := kubebuilderTree(t)
	if _, errs, code := runConverge("init", "--dir", dir); code != 0 {
		t.Fatalf("first converge init: exit %d: %s", code, errs)
	}
	path := filepath.Join(dir, "internal/controller/converge_test.go")
	if err := os.WriteFile(path, []byte("package controller // mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, errs, code := runConverge("init", "--dir", dir)
	if code != 2 || !strings.Contains(errs, "exists (use --force") || strings.Count(errs, "\n") != 1 {
		t.Errorf("converge init over a file: exit %d, %q; want exit 2 and one line naming --force", code, errs)
	}
	if b, _ := os.ReadFile(path); string(b) != "package controller // mine\n" {
		t.Errorf("converge init without --force changed the file: %q", b)
	}
	if _, errs, code := runConverge("init", "--dir", dir, "--force"); code != 0 {
		t.Fatalf("converge init --force: exit %d: %s", code, errs)
	}
	if b, _ := os.ReadFile(path); !strings.Contains(string(b), "TestConverge") {
		t.Errorf("converge init --force did not write the test: %q", b)
	}
}

func TestInitOutsideAKubebuilderProjectIsOneLineExit2(t *testing.T) {
	for _, c := range []struct {
		name   string
		break_ func(dir string) error
		want   string
	}{
		{"no PROJECT", func(dir string) error { return os.Remove(filepath.Join(dir, "PROJECT")) }, "no PROJECT file: not a kubebuilder project"},
		{"no api", func(dir string) error { return os.RemoveAll(filepath.Join(dir, "api")) }, "no api/*/ directory"},
		{"no CRDs", func(dir string) error { return os.RemoveAll(filepath.Join(dir, "config")) }, "run make manifests"},
		{"no controllers", func(dir string) error { return os.RemoveAll(filepath.Join(dir, "internal")) }, "no Go files in internal/controller"},
		{"no SetupWithManager", func(dir string) error {
			return os.WriteFile(filepath.Join(dir, "internal/controller/widget_controller.go"), []byte("package controller\n\ntype WidgetReconciler struct{}\n"), 0o644)
		}, "no type with a SetupWithManager method"},
		{"bad PROJECT", func(dir string) error { return os.WriteFile(filepath.Join(dir, "PROJECT"), []byte("repo: [\n"), 0o644) }, "PROJECT:"},
	} {
		dir := kubebuilderTree(t)
		if err := c.break_(dir); err != nil {
			t.Fatal(err)
		}
		_, errs, code := runConverge("init", "--dir", dir)
		if code != 2 || !strings.Contains(errs, c.want) || strings.Count(errs, "\n") != 1 {
			t.Errorf("%s: exit %d, %q; want exit 2 and one line with %q", c.name, code, errs, c.want)
		}
		if _, err := os.Stat(filepath.Join(dir, "internal/controller/converge_test.go")); err == nil {
			t.Errorf("%s: converge init wrote a test anyway", c.name)
		}
	}
}

// A package whose tests have a TestMain already gets no second one.
func TestInitLeavesAnExistingTestMain(t *testing.T) {
	dir := kubebuilderTree(t)
	if err := os.WriteFile(filepath.Join(dir, "internal/controller/suite_test.go"), []byte("package controller\n\nimport \"testing\"\n\nfunc TestMain(m *testing.M) { m.Run() }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errs, code := runConverge("init", "--dir", dir)
	if code != 0 {
		t.Fatalf("converge init: exit %d: %s", code, errs)
	}
	src, _ := os.ReadFile(filepath.Join(dir, "internal/controller/converge_test.go"))
	if strings.Contains(string(src), "func TestMain") || !strings.Contains(out, "call properties.Main(m) from it") {
		t.Errorf("with a TestMain already: output %q, test:\n%s", out, src)
	}
}
