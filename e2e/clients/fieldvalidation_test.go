package clients

import (
	"strings"
	"sync"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// warnings collects the Warning headers a client is sent.
type warnings struct {
	mu   sync.Mutex
	seen []string
}

func (w *warnings) HandleWarningHeader(_ int, _ string, text string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.seen = append(w.seen, text)
}

func (w *warnings) take() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	s := w.seen
	w.seen = nil
	return s
}

// TestFieldValidationOfBuiltInKinds: a body with a field its kind does not
// have is refused under Strict (what kubectl sends), kept without the
// field and a warning under Warn (what client-go sends when it sends
// nothing, as controller-runtime does), and kept silently under Ignore,
// as kube-apiserver answers.
func TestFieldValidationOfBuiltInKinds(t *testing.T) {
	c := start(t)
	var warned warnings
	cfg := rest.CopyConfig(c.cfg)
	cfg.WarningHandler = &warned
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	cms := dyn.Resource(schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}).Namespace("default")
	body := func(name string) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "v1", "kind": "ConfigMap",
			"metadata": map[string]any{"name": name},
			"data":     map[string]any{"k": "v"},
			"datum":    map[string]any{"x": "y"},
		}}
	}

	_, err = cms.Create(ctx(t), body("strict"), metav1.CreateOptions{FieldValidation: "Strict"})
	if !apierrors.IsBadRequest(err) || !strings.Contains(err.Error(), `ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "datum"`) {
		t.Fatalf("Strict create: %v", err)
	}
	if _, err := cms.Get(ctx(t), "strict", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("a refused create was stored: %v", err)
	}
	warned.take()

	got, err := cms.Create(ctx(t), body("warned"), metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create with no fieldValidation: %v", err)
	}
	if _, has := got.Object["datum"]; has || got.Object["data"] == nil {
		t.Fatalf("created object: %v", got.Object)
	}
	if w := warned.take(); len(w) != 1 || w[0] != `unknown field "datum"` {
		t.Fatalf("warnings: %q", w)
	}

	if _, err := cms.Create(ctx(t), body("ignored"), metav1.CreateOptions{FieldValidation: "Ignore"}); err != nil {
		t.Fatalf("Ignore create: %v", err)
	}
	if w := warned.take(); len(w) != 0 {
		t.Fatalf("Ignore warned: %q", w)
	}

	// A merge patch that adds an unknown field: Strict refuses the patch
	// (422), Warn applies the rest of it.
	patch := []byte(`{"data":{"k":"w"},"datum":{"x":"z"}}`)
	_, err = cms.Patch(ctx(t), "warned", types.MergePatchType, patch, metav1.PatchOptions{FieldValidation: "Strict"})
	if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), `strict decoding error: unknown field "datum"`) {
		t.Fatalf("Strict patch: %v", err)
	}
	warned.take()
	got, err = cms.Patch(ctx(t), "warned", types.MergePatchType, patch, metav1.PatchOptions{})
	if err != nil {
		t.Fatalf("patch with no fieldValidation: %v", err)
	}
	if data, _ := got.Object["data"].(map[string]any); data["k"] != "w" {
		t.Fatalf("patched object: %v", got.Object)
	}
	if w := warned.take(); len(w) != 1 || w[0] != `unknown field "datum"` {
		t.Fatalf("patch warnings: %q", w)
	}

	// A typed client cannot send a duplicate field; a raw request can: Warn
	// keeps the last value and warns.
	raw := []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"dup"},"data":{"k":"1","k":"2"}}`)
	res := c.cs.CoreV1().RESTClient().Post().Namespace("default").Resource("configmaps").Body(raw).Do(ctx(t))
	if err := res.Error(); err != nil {
		t.Fatalf("create with a duplicate field: %v", err)
	}
	if w := res.Warnings(); len(w) != 1 || w[0].Text != `duplicate field "data.k"` {
		t.Fatalf("duplicate field warnings: %+v", w)
	}
	cm, err := c.cs.CoreV1().ConfigMaps("default").Get(ctx(t), "dup", metav1.GetOptions{})
	if err != nil || cm.Data["k"] != "2" {
		t.Fatalf("duplicate field kept %v: %v", cm, err)
	}

	// controller-runtime's client, at its defaults, sends none either.
	cl, err := client.New(cfg, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	warned.take()
	viaCR := body("controller-runtime")
	viaCR.SetNamespace("default")
	if err := cl.Create(ctx(t), viaCR); err != nil {
		t.Fatalf("controller-runtime create: %v", err)
	}
	if w := warned.take(); len(w) != 1 || w[0] != `unknown field "datum"` {
		t.Fatalf("controller-runtime warnings: %q", w)
	}
}
