package operator

import (
	"net/http/httptest"
	"testing"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// TestOwnStatusIsTheReconciledObjectsAlone: only a conflict on the status
// of the object the reconcile is for leaves the reconcile settled; one on
// its spec, on another object's status or on a child keeps it unsettled.
func TestOwnStatusIsTheReconciledObjectsAlone(t *testing.T) {
	p := &pass{Item: Item{Request: reconcile.Request{NamespacedName: types.NamespacedName{Namespace: "default", Name: "b"}}}}
	p.checks.gen.resource = "brokers"
	p.checks.gen.kind.Group = "mq.probe.example.com"
	for path, want := range map[string]bool{
		"/apis/mq.probe.example.com/v1/namespaces/default/brokers/b/status": true,
		"/apis/mq.probe.example.com/v1/namespaces/default/brokers/b":        false,
		"/apis/mq.probe.example.com/v1/namespaces/default/brokers/a/status": false,
		"/apis/mq.probe.example.com/v1/namespaces/other/brokers/b/status":   false,
		"/apis/apps/v1/namespaces/default/deployments/b":                    false,
		"/apis/apps/v1/namespaces/default/deployments/b/status":             false, // a child of the same name
		"/apis/other.example.com/v1/namespaces/default/brokers/b/status":    false, // the same plural in another group
		"/api/v1/namespaces/default/configmaps/broker-registry":             false,
	} {
		if got := ownStatus(p, httptest.NewRequest("PUT", path, nil)); got != want {
			t.Errorf("ownStatus(%s) = %v, want %v", path, got, want)
		}
	}
	unknown := &pass{Item: p.Item}
	if ownStatus(unknown, httptest.NewRequest("PUT", "/apis/mq.probe.example.com/v1/namespaces/default/brokers/b/status", nil)) {
		t.Error("a pass whose primary kind is unknown took a conflict for its own status's")
	}
}
