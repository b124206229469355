package apiserver

import (
	"testing"

	"github.com/converge-dev/converge/impl/api"
)

// TestApplyThatChangesNothingWritesNothing: as in Kubernetes, repeating
// an apply leaves the resourceVersion where it was; a change writes.
func TestApplyThatChangesNothingWritesNothing(t *testing.T) {
	e := newEnv(t)
	body := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"same"},"data":{"a":"1"}}`
	var first, again, changed api.ConfigMap
	e.must(201, "PATCH", cmPath+"/same?fieldManager=me", body, "Content-Type: "+applyPatchType).into(t, &first)
	e.must(200, "PATCH", cmPath+"/same?fieldManager=me", body, "Content-Type: "+applyPatchType).into(t, &again)
	if again.ResourceVersion != first.ResourceVersion {
		t.Fatalf("repeated apply wrote: %s -> %s", first.ResourceVersion, again.ResourceVersion)
	}
	e.must(200, "PATCH", cmPath+"/same?fieldManager=me", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"same"},"data":{"a":"2"}}`,
		"Content-Type: "+applyPatchType).into(t, &changed)
	if changed.ResourceVersion == first.ResourceVersion || changed.Data["a"] != "2" {
		t.Fatalf("changing apply: rv %s data %v", changed.ResourceVersion, changed.Data)
	}
}
