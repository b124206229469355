package apiserver

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"
)

// client-go's DiscoveryClient.OpenAPISchema reads /openapi/v2 as protobuf:
// it has the built-in kinds and the CRDs served, each with its
// group-version-kind.
func TestOpenAPIV2ForClientGo(t *testing.T) {
	e := newCRDEnv(t)
	dc, err := discovery.NewDiscoveryClientForConfig(&rest.Config{Host: e.srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	doc, err := dc.OpenAPISchema()
	if err != nil {
		t.Fatal(err)
	}
	found := map[string]bool{}
	for _, d := range doc.GetDefinitions().GetAdditionalProperties() {
		for _, ext := range d.GetValue().GetVendorExtension() {
			if ext.GetName() == "x-kubernetes-group-version-kind" {
				found[d.GetName()] = true
			}
		}
	}
	for _, want := range []string{"io.k8s.api.apps.v1.Deployment", "io.k8s.api.core.v1.Pod", "com.example.v1.Widget"} {
		if !found[want] {
			t.Errorf("no %s with its group-version-kind in /openapi/v2 (%d kinds found)", want, len(found))
		}
	}
	if doc.GetSwagger() != "2.0" {
		t.Errorf("swagger %q", doc.GetSwagger())
	}
	// Every reference resolves within the document.
	r := e.must(200, "GET", "/openapi/v2", "")
	if ct := r.hdr.Get("Content-Type"); ct != "application/json" {
		t.Errorf("JSON asked for none: %s", ct)
	}
	if err := checkRefs(r.body); err != nil {
		t.Error(err)
	}
}

// checkRefs fails for a $ref whose definition is not in the document.
func checkRefs(body []byte) error {
	var doc struct {
		Definitions map[string]any `json:"definitions"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		return err
	}
	var missing []string
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			if ref, ok := x["$ref"].(string); ok {
				if _, ok := doc.Definitions[strings.TrimPrefix(ref, "#/definitions/")]; !ok {
					missing = append(missing, ref)
				}
			}
			for _, c := range x {
				walk(c)
			}
		case []any:
			for _, c := range x {
				walk(c)
			}
		}
	}
	walk(doc.Definitions)
	if len(missing) > 0 {
		return fmt.Errorf("unresolved references: %v", missing)
	}
	return nil
}
