package replicaset_test

import (
	"testing"

	"github.com/converge-dev/converge/examples/replicaset"
	"github.com/converge-dev/converge/model"
	"github.com/converge-dev/converge/properties"
)

// ownKeys queues a ReplicaSet under its own key and a Pod under its
// controller's, both namespace/name as client-go's MetaNamespaceKeyFunc
// makes them: web in default and web in team-b are two keys.
func ownKeys(e model.WatchEvent) []string {
	m := model.MetaOf(e.Obj)
	if e.Obj.Kind() == model.KindPod {
		if m.Owner.UID == 0 || m.Owner.Kind != model.KindReplicaSet {
			return nil
		}
		return []string{model.OwnerRef(m).Key()}
	}
	return []string{model.KeyOf(e.Obj)}
}

// ownComponent is the example's controller as a component of its own,
// with its own watches and keys.
var ownComponent = properties.ControllerSpec{Name: "my-replicasets", Watches: []model.Kind{model.KindReplicaSet, model.KindPod},
	Keys: ownKeys, New: replicaset.New}

// TestReplicaSetsAsAComponentOfTheirOwn checks the controller as a new
// component beside the built-in replicaset controller, whose decisions
// properties.Disabled turns off (its watches and queue stay): every
// ReplicaSet's pods, in the default namespace and in team-b, are the new
// component's work.
func TestReplicaSetsAsAComponentOfTheirOwn(t *testing.T) {
	properties.CheckController(t, properties.Disabled(model.ReplicaSetController), properties.ImplOptions{Faults: true}, ownComponent)
}

// TestDisabledAloneIsCaught: with the built-in disabled and nothing in
// its place, no ReplicaSet gets its pods, and the property says so; so
// the test above passes on the new component's work.
func TestDisabledAloneIsCaught(t *testing.T) {
	defer properties.SetRapidFlags(t, map[string]string{"rapid.checks": "20", "rapid.nofailfile": "true", "rapid.shrinktime": "1s"})()
	tb := properties.NewReport(t.Name())
	properties.CheckControllerTB(tb, t, properties.Disabled(model.ReplicaSetController), properties.ImplOptions{})
	if !tb.Failed() {
		t.Fatal("a cluster with no replicaset controller passed")
	}
}
