package apiserver

import (
	"testing"
)

// FuzzApplyPatch: no patch of any type, applied to any document, panics.
func FuzzApplyPatch(f *testing.F) {
	doc := `{"metadata":{"name":"a","labels":{"x":"1"}},"spec":{"template":{"spec":{"containers":[{"name":"c","ports":[{"containerPort":80}]}]}}}}`
	for _, p := range []string{
		`[{"op":"move","from":"/spec","path":"/spec/x"}]`,
		`[{"op":"copy","from":"","path":"/x"}]`,
		`[{"op":"add","path":"/spec/template/spec/containers/-","value":{}}]`,
		`{"spec":{"template":{"spec":{"containers":[{"name":"c","$patch":"delete"}]}}}}`,
		`{"$retainKeys":"x","spec":{"$patch":"replace"}}`,
		`{"metadata":{"$deleteFromPrimitiveList/finalizers":7}}`,
	} {
		for _, mt := range []string{jsonPatchType, mergePatchType, strategicPatchType} {
			f.Add(mt, doc, p)
		}
	}
	f.Fuzz(func(t *testing.T, mt, doc, patch string) {
		if err := checkPatchSyntax(mt, []byte(patch)); err != nil {
			return
		}
		_, _ = applyPatch(mt, "deployments", []byte(doc), []byte(patch))
	})
}

// FuzzParseRoute: any path parses or fails with a Status, never panics.
func FuzzParseRoute(f *testing.F) {
	for _, p := range []string{"/api/v1/namespaces/a/pods/b/status", "/apis/apps/v1/deployments", "/api/v1/namespaces/x/status", "//api//v1/", "/apis/apps"} {
		f.Add(p)
	}
	f.Fuzz(func(t *testing.T, path string) {
		if _, err := parseRoute(path); err != nil && err.Error() == "" {
			t.Fatal("error without a message")
		}
	})
}
