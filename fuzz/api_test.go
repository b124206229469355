package fuzz

import (
	"context"
	"encoding/json"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/impl/apiserver"
	"github.com/converge-dev/converge/impl/registry"
	"github.com/converge-dev/converge/impl/store"
	"github.com/converge-dev/converge/impl/store/storetest"
)

// FuzzAPIRequest sends arbitrary method, path, content type and body to
// the apiserver's handler over a real store. No request may panic or get a
// 5xx, every JSON answer must be valid JSON, and a rejected request (any
// non-2xx) must leave the store's revision unchanged.
//
// The worked example's Widget CRD is installed
// (../examples/crd/bases/example.com_widgets.yaml, with a Widget w1), so
// custom resource paths are live;
// an input that deleted the CRD has it reinstalled before the next one.
// What the CRD controllers and the custom garbage collector do in the
// background under RunCRDs is done after each accepted write instead
// (controllers.settle), so that the revision check is the input's own.
func FuzzAPIRequest(f *testing.F) {
	const pods = "/api/v1/namespaces/default/pods"
	const deploys = "/apis/apps/v1/namespaces/default/deployments"
	pod := `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p2"},"spec":{"containers":[{"name":"c","image":"nginx"}]}}`
	f.Add("POST", pods, "application/json", pod)
	f.Add("POST", pods, "application/json", `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"Bad_Name"}}`)
	f.Add("POST", pods, "application/json", `{not json`)
	f.Add("POST", deploys, "application/json", `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"},"spec":{"replicas":-1}}`)
	f.Add("PUT", pods+"/p1", "application/json", `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p1","resourceVersion":"1"},"spec":{"containers":[{"name":"c","image":"x"}]}}`)
	f.Add("PATCH", pods+"/p1", "application/merge-patch+json", `{"metadata":{"labels":{"a":"b"}}}`)
	f.Add("PATCH", pods+"/p1", "application/json-patch+json", `[{"op":"test","path":"/metadata/name","value":"nope"}]`)
	f.Add("PATCH", pods+"/p1", "application/strategic-merge-patch+json", `{"spec":{"containers":[{"name":"c","image":"y"}]}}`)
	f.Add("PATCH", pods+"/p1?fieldManager=f", "application/apply-patch+yaml", "apiVersion: v1\nkind: Pod\nmetadata: {name: p1}\n")
	f.Add("DELETE", pods+"/nope", "application/json", ``)
	f.Add("GET", pods+"?labelSelector=a%3D%3D", "", ``)
	f.Add("POST", pods+"/p1/binding", "application/json", `{"apiVersion":"v1","kind":"Binding","metadata":{"name":"p1"},"target":{"kind":"Node","name":"n"}}`)
	f.Add("POST", "/api/v1/namespaces/default/gizmos", "text/plain", `x`)
	f.Add("GET", "/openapi/v3/apis/apps/v1", "", ``)
	addCustomResourceSeeds(f)
	st := storetest.Store(f)
	reg := registry.New(registry.Config{Store: st})
	s, err := apiserver.New(apiserver.Config{Registry: reg, MaxBodyBytes: 64 << 10, Log: log.New(io.Discard, "", 0)})
	if err != nil {
		f.Fatal(err)
	}
	h := s.Handler()
	ctx := context.Background()
	if _, err := reg.Create(ctx, &api.Pod{ObjectMeta: api.ObjectMeta{Name: "p1", Namespace: "default"},
		Spec: api.PodSpec{Containers: []api.Container{{Name: "c", Image: "nginx"}}}}); err != nil {
		f.Fatal(err)
	}
	c := &controllers{reg: reg, st: st, h: h, known: map[string]bool{}}
	f.Cleanup(c.stop)
	c.installWidgets(f)
	f.Fuzz(func(t *testing.T, method, path, contentType, body string) {
		u, err := url.Parse(path)
		if err != nil || strings.Contains(u.RawQuery, "watch") {
			return // watches stream until cancelled; they are tested elsewhere
		}
		c.restoreWidgets(t)
		before, err := st.Rev(ctx)
		if err != nil {
			t.Fatal(err)
		}
		req := httptest.NewRequest(http.MethodGet, "/", strings.NewReader(body))
		req.Method, req.URL = method, u
		req.Header.Set("Content-Type", contentType)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code >= 500 {
			t.Fatalf("%s %s: %d %s", method, path, rec.Code, rec.Body.String())
		}
		if strings.HasPrefix(rec.Header().Get("Content-Type"), "application/json") && !json.Valid(rec.Body.Bytes()) {
			t.Fatalf("%s %s: invalid JSON %q", method, path, rec.Body.String())
		}
		after, err := st.Rev(ctx)
		if rec.Code >= 300 {
			if err != nil || after != before {
				t.Fatalf("%s %s was rejected with %d but the store moved from %d to %d (%v)", method, path, rec.Code, before, after, err)
			}
			return
		}
		if err == nil && after != before {
			c.settle(t)
		}
	})
}

const (
	crdsPath  = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
	widgetCRD = "widgets.example.com"
)

// serve sends one request to h.
func serve(h http.Handler, method, path, contentType, body string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// controllers does what RunCRDs does in the background (the CRD
// controllers' reconcile, SyncCRD), but in the foreground: settle runs
// it after every write that was accepted, until it writes no more. So
// every input's revision check sees the input's own writes only, where
// RunCRDs' writes would land in whatever request was being served.
type controllers struct {
	reg   *registry.Registry
	st    *store.Store
	h     http.Handler
	known map[string]bool // the CRDs synced, so that a deleted one is unserved
}

// settle syncs every CRD until the store is still.
func (c *controllers) settle(tb testing.TB) {
	tb.Helper()
	ctx := context.Background()
	for range 20 {
		before, err := c.st.Rev(ctx)
		if err != nil {
			tb.Fatal(err)
		}
		l, err := c.reg.List(ctx, "customresourcedefinitions", "", registry.ListOptions{})
		if err != nil {
			tb.Fatal(err)
		}
		for _, o := range api.Items(l) {
			c.known[api.Meta(o).Name] = true
		}
		for name := range c.known {
			// An error is the loop's to retry (RunCRDs starts over): here
			// the next round does.
			_, _ = c.reg.SyncCRD(ctx, name)
			if _, err := c.reg.Get(ctx, "customresourcedefinitions", "", name); api.IsNotFound(err) {
				delete(c.known, name)
			}
		}
		if after, err := c.st.Rev(ctx); err == nil && after == before {
			return
		}
	}
}

// stop ends the serving of the CRDs' resources, which is the process's:
// RunCRDs, when its context has ended, unserves what the registry serves.
func (c *controllers) stop() {
	done, cancel := context.WithCancel(context.Background())
	cancel()
	c.reg.RunCRDs(done)
}

// restoreWidgets reinstalls the Widget CRD when an earlier input deleted
// it. A deletion that finalizers hold up (an input may add its own) is let
// through first: the widgets' finalizers, and the CRD's but the CRD
// controllers' own, are dropped.
func (c *controllers) restoreWidgets(tb testing.TB) {
	tb.Helper()
	ctx := context.Background()
	obj, err := c.reg.Get(ctx, "customresourcedefinitions", "", widgetCRD)
	switch {
	case api.IsNotFound(err):
	case err != nil:
		tb.Fatal(err)
	case api.Meta(obj).DeletionTimestamp == nil:
		return
	default:
		for range 10 {
			if l, err := c.reg.List(ctx, "widgets", "", registry.ListOptions{}); err == nil {
				for _, o := range api.Items(l) {
					if len(api.Meta(o).Finalizers) > 0 {
						api.Meta(o).Finalizers = nil
						_, _ = c.reg.Update(ctx, o) // a conflict is tried again
					}
				}
			}
			crd, err := c.reg.Get(ctx, "customresourcedefinitions", "", widgetCRD)
			if api.IsNotFound(err) {
				break
			}
			if err == nil && len(api.Meta(crd).Finalizers) > 1 {
				api.Meta(crd).Finalizers = []string{registry.CRDCleanupFinalizer}
				_, _ = c.reg.Update(ctx, crd)
			}
			c.settle(tb)
		}
		if crd, err := c.reg.Get(ctx, "customresourcedefinitions", "", widgetCRD); !api.IsNotFound(err) {
			b, _ := json.Marshal(crd)
			tb.Fatalf("the deleted Widget CRD does not go (%v): %s", err, b)
		}
	}
	c.installWidgets(tb)
}

// installWidgets installs the worked example's Widget CRD and creates the
// Widget w1.
func (c *controllers) installWidgets(tb testing.TB) {
	tb.Helper()
	y, err := os.ReadFile("../examples/crd/bases/example.com_widgets.yaml")
	if err != nil {
		tb.Fatal(err)
	}
	if rec := serve(c.h, "POST", crdsPath, "application/yaml", string(y)); rec.Code != http.StatusCreated {
		tb.Fatalf("installing the Widget CRD: %d %s", rec.Code, rec.Body)
	}
	c.settle(tb)
	w1 := `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w1","labels":{"app":"w"}},"spec":{"image":"nginx:1.27","replicas":2}}`
	if rec := serve(c.h, "POST", "/apis/example.com/v1/namespaces/default/widgets", "application/json", w1); rec.Code != http.StatusCreated {
		tb.Fatalf("creating the Widget w1: %d %s", rec.Code, rec.Body)
	}
	c.settle(tb)
}

// gadgetCRD is a CRD with the schema features the Widget lacks:
// int-or-string, preserved unknown fields, an embedded resource, map and
// set lists, additionalProperties, a CEL rule with a messageExpression,
// and a status subresource.
const gadgetCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: gadgets.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {plural: gadgets, singular: gadget, kind: Gadget}
  versions:
  - name: v1
    served: true
    storage: true
    subresources: {status: {}}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            x-kubernetes-validations:
            - rule: "!has(self.tags) || size(self.tags) <= 3"
              messageExpression: "'too many tags: ' + self.tags.join(',')"
            properties:
              port: {x-kubernetes-int-or-string: true}
              extra: {type: object, x-kubernetes-preserve-unknown-fields: true}
              template: {type: object, x-kubernetes-embedded-resource: true, x-kubernetes-preserve-unknown-fields: true}
              items:
                type: array
                x-kubernetes-list-type: map
                x-kubernetes-list-map-keys: [name]
                items:
                  type: object
                  required: [name]
                  properties:
                    name: {type: string}
                    value: {type: integer, default: 0}
              tags: {type: array, maxItems: 10, x-kubernetes-list-type: set, items: {type: string, maxLength: 16}}
              limits: {type: object, additionalProperties: {type: string, maxLength: 8}}
          status: {type: object, x-kubernetes-preserve-unknown-fields: true}
`

// addCustomResourceSeeds adds seeds for custom resources: the Widget's
// paths at both its served versions, its subresources and every patch
// type; and CRDs with odd schemas and their objects, invalid and malformed
// CRDs, CRD updates and deletion. Seeds run in order against one server:
// the Gadget CRD is created before its gadgets, and the Widget CRD is
// deleted last.
func addCustomResourceSeeds(f *testing.F) {
	const (
		w      = "/apis/example.com/v1/namespaces/default/widgets"
		wb     = "/apis/example.com/v1beta1/namespaces/default/widgets"
		g      = "/apis/example.com/v1/namespaces/default/gadgets"
		js     = "application/json"
		merge  = "application/merge-patch+json"
		jpatch = "application/json-patch+json"
		apply  = "application/apply-patch+yaml"
		smp    = "application/strategic-merge-patch+json"
	)
	widget := func(name, spec string) string {
		return `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"` + name + `"},"spec":` + spec + `}`
	}
	crd := func(name, group, plural, kind, scope, versions string) string {
		return `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"` + name + `"},"spec":{"group":"` + group +
			`","scope":"` + scope + `","names":{"plural":"` + plural + `","singular":"` + strings.TrimSuffix(plural, "s") + `","kind":"` + kind + `"},"versions":` + versions + `}}`
	}
	v1 := func(schema string) string {
		return `[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":` + schema + `}}]`
	}
	gadgetJSON, err := yaml.YAMLToJSON([]byte(gadgetCRD))
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range [][4]string{
		// Widgets: create, read, list.
		{"POST", w, js, widget("w2", `{"image":"nginx:1.27","replicas":2,"config":{"a":{"b":[1,"x",null]}}}`)},
		{"POST", w, "application/yaml", "apiVersion: example.com/v1\nkind: Widget\nmetadata: {generateName: w-}\nspec: {image: busybox, size: small}\n"},
		{"POST", w + "?fieldValidation=Strict", js, widget("w3", `{"image":"nginx","colour":"red"}`)},
		{"POST", w + "?dryRun=All&fieldManager=fz", js, widget("w4", `{"image":"nginx"}`)},
		{"POST", w, js, widget("bad", `{"image":"nginx","replicas":11}`)},
		{"POST", w, js, widget("bad", `{"image":"nginx","replicas":6}`)},
		{"POST", w, js, widget("bad", `{"image":"NGINX!","size":"huge","replicas":"2"}`)},
		{"POST", w, js, `{"apiVersion":"example.com/v1","kind":"Gadget","metadata":{"name":"bad"},"spec":{"image":"nginx"}}`},
		{"POST", w, js, `{"apiVersion":"example.com/v2","kind":"Widget","metadata":{"name":"bad"},"spec":{"image":"nginx"}}`},
		{"POST", w, js, `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"bad","namespace":"other"},"spec":{"image":"nginx"}}`},
		{"POST", w, js, `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"o1","ownerReferences":[{"apiVersion":"example.com/v1","kind":"Widget","name":"w1","uid":"u1"}]},"spec":{"image":"nginx"}}`},
		{"POST", w, js, `{"apiVersion":"example.com/v1","kind":`},
		{"POST", w, js, `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"bad"},"spec":[1]}`},
		{"POST", wb, js, `{"apiVersion":"example.com/v1beta1","kind":"Widget","metadata":{"name":"b1"},"spec":{"anything":{"goes":true}},"status":{"x":1}}`},
		{"POST", "/apis/example.com/v1/widgets", js, widget("cluster", `{"image":"nginx"}`)},
		{"GET", w + "/w1", "", ""},
		{"GET", wb + "/w1", "", ""},
		{"GET", "/apis/example.com/v1/widgets?labelSelector=app%3Dw&limit=1", "", ""},
		{"GET", w + "?fieldSelector=metadata.name%3Dw1&resourceVersion=0", "", ""},
		{"GET", w + "?fieldSelector=spec.image%3Dnginx", "", ""},
		{"GET", "/apis/example.com/v2/namespaces/default/widgets", "", ""},
		{"GET", "/apis/example.com", "", ""},
		{"GET", "/apis/example.com/v1beta1", "", ""},
		{"GET", "/openapi/v3/apis/example.com/v1", "", ""},
		// Updates, and every patch type.
		{"PUT", w + "/w1", js, widget("w1", `{"image":"nginx:1.27","replicas":3}`)},
		{"PUT", w + "/w1", js, strings.Replace(widget("w1", `{"image":"nginx:1.27","replicas":3}`), `"name":"w1"`, `"name":"w1","resourceVersion":"1"`, 1)},
		{"PUT", w + "/w1", js, widget("other", `{"image":"nginx:1.27"}`)},
		{"PATCH", w + "/w1", merge, `{"spec":{"replicas":3},"metadata":{"labels":{"x":"y"}}}`},
		{"PATCH", w + "/w1", merge, `{"spec":{"image":"nginx:2"}}`},
		{"PATCH", w + "/w1?fieldValidation=Strict", merge, `{"spec":{"colour":"red"}}`},
		{"PATCH", wb + "/w1", merge, `{"spec":{"anything":1}}`},
		{"PATCH", w + "/w1", jpatch, `[{"op":"replace","path":"/spec/replicas","value":4},{"op":"add","path":"/spec/config","value":{"k":"v"}}]`},
		{"PATCH", w + "/w1", jpatch, `[{"op":"test","path":"/spec/image","value":"other"}]`},
		{"PATCH", w + "/w1", jpatch, `[{"op":"remove","path":"/spec"}]`},
		{"PATCH", w + "/w1", jpatch, `{"op":"add"}`},
		{"PATCH", w + "/w1?fieldManager=fz", apply, "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w1}\nspec: {image: 'nginx:1.27', replicas: 2}\n"},
		{"PATCH", w + "/w5?fieldManager=fz&force=true", apply, "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w5}\nspec: {image: busybox}\n"},
		{"PATCH", w + "/w1?fieldManager=fz", apply, "apiVersion: example.com/v1beta1\nkind: Widget\nmetadata: {name: w1}\nspec: {image: x}\n"},
		{"PATCH", w + "/w1", smp, `{"spec":{"replicas":3}}`},
		// Subresources.
		{"GET", w + "/w1/status", "", ""},
		{"PATCH", w + "/w1/status", merge, `{"status":{"readyReplicas":1,"replicas":2,"selector":"app=w"},"spec":{"replicas":9}}`},
		{"PUT", w + "/w1/status", js, `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w1"},"status":{"readyReplicas":-1}}`},
		{"PATCH", wb + "/w1/status", jpatch, `[{"op":"add","path":"/status","value":{"free":"form"}}]`},
		{"PATCH", w + "/w1/status?fieldManager=fz", apply, "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w1}\nstatus: {readyReplicas: 2}\n"},
		{"GET", w + "/w1/scale", "", ""},
		{"PATCH", w + "/w1/scale", merge, `{"spec":{"replicas":2}}`},
		{"PUT", w + "/w1/scale", js, `{"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{"name":"w1","namespace":"default"},"spec":{"replicas":11}}`},
		{"GET", w + "/w1/frob", "", ""},
		// Deletion.
		{"DELETE", w + "/w2?dryRun=All", "", ""},
		{"DELETE", w + "/w2", js, `{"kind":"DeleteOptions","apiVersion":"v1","propagationPolicy":"Foreground","preconditions":{"uid":"nope"}}`},
		{"DELETE", wb + "/w2?propagationPolicy=Orphan", "", ""},
		{"DELETE", w + "?labelSelector=app%3Dnone", "", ""},
		// A CRD with odd schemas, and its objects.
		{"POST", crdsPath, js, string(gadgetJSON)},
		{"POST", g, js, `{"apiVersion":"example.com/v1","kind":"Gadget","metadata":{"name":"g1"},"spec":{"port":8080,"extra":{"a":{"b":1}},"template":{"apiVersion":"v1","kind":"Pod","metadata":{"name":"x"}},"items":[{"name":"a"}],"tags":["x"],"limits":{"cpu":"1"}}}`},
		{"POST", g, js, `{"apiVersion":"example.com/v1","kind":"Gadget","metadata":{"name":"g2"},"spec":{"port":"http","tags":["a","b","c","d"]}}`},
		{"POST", g, js, `{"apiVersion":"example.com/v1","kind":"Gadget","metadata":{"name":"g3"},"spec":{"port":1.5,"items":[{"name":"a"},{"name":"a"}],"tags":["x","x"]}}`},
		{"POST", g, js, `{"apiVersion":"example.com/v1","kind":"Gadget","metadata":{"name":"g4"},"spec":{"template":{"metadata":{"name":"Bad_Name"}},"limits":{"cpu":"123456789"}}}`},
		{"PATCH", g + "/g1", jpatch, `[{"op":"add","path":"/spec/items/-","value":{"name":"b","value":"x"}}]`},
		{"PATCH", g + "/g1?fieldManager=fz", apply, "apiVersion: example.com/v1\nkind: Gadget\nmetadata: {name: g1}\nspec: {items: [{name: c}], tags: [y]}\n"},
		{"POST", crdsPath, js, crd("things.fuzz.io", "fuzz.io", "things", "Thing", "Cluster",
			`[{"name":"v1alpha1","served":false,"storage":false,"schema":{"openAPIV3Schema":{"type":"object"}}},`+
				`{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true,"properties":{"spec":{"type":"object","properties":{"size":{"type":"integer"}}}}}},`+
				`"additionalPrinterColumns":[{"name":"Size","type":"integer","jsonPath":".spec.size"}],"selectableFields":[{"jsonPath":".spec.size"}]}]`)},
		{"POST", "/apis/fuzz.io/v1/things", js, `{"apiVersion":"fuzz.io/v1","kind":"Thing","metadata":{"name":"t1"},"spec":{"size":3}}`},
		{"GET", "/apis/fuzz.io/v1/things?fieldSelector=spec.size%3D3", "", ""},
		{"GET", "/apis/fuzz.io/v1alpha1/things", "", ""},
		{"POST", "/apis/fuzz.io/v1/namespaces/default/things", js, `{"apiVersion":"fuzz.io/v1","kind":"Thing","metadata":{"name":"t2"}}`},
		{"DELETE", crdsPath + "/things.fuzz.io", "", ""},
		// CRDs that do not validate, or do not decode.
		{"POST", crdsPath, js, crd("bads.example.com", "example.com", "bads", "Bad", "Namespaced", `[{"name":"v1","served":true,"storage":false,"schema":{"openAPIV3Schema":{"type":"object"}}}]`)},
		{"POST", crdsPath, js, crd("bads.example.com", "example.com", "bads", "Bad", "Namespaced", v1(`{"type":"object","properties":{"spec":{"properties":{"a":{"type":"string"}}}}}`))},
		{"POST", crdsPath, js, crd("bads.example.com", "example.com", "bads", "Bad", "Namespaced", v1(`{"type":"object","x-kubernetes-validations":[{"rule":"self.nope =="}]}`))},
		{"POST", crdsPath, js, crd("bads.example.com", "example.com", "bads", "Bad", "Namespaced", v1(`{"type":"object","properties":{"n":{"type":"integer","default":"x"}}}`))},
		{"POST", crdsPath, js, crd("bads.example.com", "example.com", "bads", "Bad", "Namespaced", v1(`{"type":"object","properties":{"t":{"type":"object","x-kubernetes-embedded-resource":true}}}`))},
		{"POST", crdsPath, js, crd("bad.example.com", "example.com", "bads", "Bad", "Namespaced", v1(`{"type":"object"}`))},
		{"POST", crdsPath, js, crd("bads.example", "example", "bads", "Bad", "Namespaced", v1(`{"type":"object"}`))},
		{"POST", crdsPath, js, crd("deployments.fuzz.io", "fuzz.io", "deployments", "Deployment", "Namespaced", v1(`{"type":"object"}`))},
		{"POST", crdsPath, js, strings.Replace(crd("bads.example.com", "example.com", "bads", "Bad", "Namespaced", v1(`{"type":"object"}`)), `"group"`, `"preserveUnknownFields":true,"group"`, 1)},
		{"POST", crdsPath, js, crd("bads.example.com", "example.com", "bads", "Bad", "Sideways", v1(`{"type":"object"}`))},
		{"POST", crdsPath, js, crd("bads.example.com", "example.com", "bads", "Bad", "Namespaced", `{}`)},
		{"POST", crdsPath, js, `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"x"},"spec":`},
		{"POST", crdsPath, "application/yaml", "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: ys.example.com}\n" +
			"spec: {group: example.com, names: {plural: ys, kind: Y}, scope: Namespaced, versions: [{name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object, properties: {a: {type: array}}}}}]}\n"},
		// CRD updates.
		{"GET", crdsPath + "/widgets.example.com", "", ""},
		{"PATCH", crdsPath + "/widgets.example.com", merge, `{"spec":{"names":{"shortNames":["wd","wdg"]}}}`},
		{"PATCH", crdsPath + "/widgets.example.com", jpatch, `[{"op":"replace","path":"/spec/scope","value":"Cluster"}]`},
		{"PATCH", crdsPath + "/widgets.example.com", jpatch, `[{"op":"remove","path":"/spec/versions/0"}]`},
		{"PATCH", crdsPath + "/widgets.example.com", smp, `{"spec":{"versions":[{"name":"v1beta1","deprecated":true}]}}`},
		{"PATCH", crdsPath + "/widgets.example.com/status", merge, `{"status":{"acceptedNames":{"plural":"gizmos","kind":"Gizmo"},"conditions":null}}`},
		{"PUT", crdsPath + "/gadgets.example.com", js, strings.Replace(string(gadgetJSON), `"name":"gadgets.example.com"`, `"name":"gadgets.example.com","resourceVersion":"1"`, 1)},
		{"PATCH", crdsPath + "/gadgets.example.com?fieldManager=fz&force=true", apply, gadgetCRD},
		// Deleting a CRD takes its objects; then its paths are 404.
		{"DELETE", crdsPath + "/gadgets.example.com", "", ""},
		{"GET", g + "/g1", "", ""},
		{"DELETE", crdsPath + "/widgets.example.com", "", ""},
		{"GET", w + "/w1", "", ""},
	} {
		f.Add(s[0], s[1], s[2], s[3])
	}
}
