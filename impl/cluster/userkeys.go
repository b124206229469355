package cluster

import (
	"fmt"

	"github.com/converge-dev/converge/model"
)

// The queue keys of a user's new component follow client-go's
// MetaNamespaceKeyFunc: "namespace/name" for a namespaced object, the bare
// name for a cluster-scoped one (a Node, a Namespace). A bare name for a
// namespaced object loses its namespace: the reconcile would be asked for
// an object in no namespace, and miss team-b/web, or read default/web in
// its place.

// defaultKeys queues the object's own key, as a controller-runtime
// For/Watches with no mapping does.
func defaultKeys(e model.WatchEvent) []string { return []string{model.KeyOf(e.Obj)} }

// probeName names the objects a Keys function is tried on when its spec is
// built: a name no test uses, in a namespace that is not the default one.
const probeName, probeNamespace = "converge-keys-probe", "converge-keys-probe-ns"

// probeKeys tries spec's Keys on an object of each namespaced kind it
// watches and refuses a Keys that answers with the object's bare name.
// A Keys that cannot take the bare probe object (it panics on a field the
// probe lacks) is left to the check of every event (checkKey).
func probeKeys(spec ControllerSpec) error {
	if spec.Keys == nil {
		return nil
	}
	for _, k := range spec.Watches {
		o := probeObject(k)
		if o == nil {
			continue
		}
		for _, key := range tryKeys(spec.Keys, model.WatchEvent{Type: model.Added, Obj: o}) {
			if key == probeName {
				return bareKeyError(spec.Name, key, o)
			}
		}
	}
	return nil
}

// tryKeys is keys(e), or nothing if keys panics.
func tryKeys(keys func(model.WatchEvent) []string, e model.WatchEvent) (out []string) {
	defer func() {
		if recover() != nil {
			out = nil
		}
	}()
	return keys(e)
}

// probeObject is a bare object of namespaced kind k in probeNamespace, or
// nil for a cluster-scoped kind and for custom resources, whose scope is
// their definition's.
func probeObject(k model.Kind) model.Obj {
	m := model.Meta{Name: probeName, Namespace: probeNamespace}
	switch k {
	case model.KindDeployment:
		return &model.Deployment{Meta: m}
	case model.KindReplicaSet:
		return &model.ReplicaSet{Meta: m}
	case model.KindPod:
		return &model.Pod{Meta: m}
	case model.KindService:
		return &model.Service{Meta: m}
	case model.KindEndpoints:
		return &model.Endpoints{Meta: m}
	case model.KindEndpointSlice:
		return &model.EndpointSlice{Meta: m}
	}
	return nil
}

// checkKey refuses a key that is the bare name of a namespaced object the
// component sees in the event's namespace (the event's own object, or one
// it maps to, such as an owner), unless a cluster-scoped object the
// component watches has that name: then the key is that object's, as a
// Pod mapped to its Node is.
func (c *component) checkKey(e model.WatchEvent, key string) error {
	m := model.MetaOf(e.Obj)
	if m.Namespace == "" || hasNamespace(key) {
		return nil
	}
	named := key == m.Name
	for _, k := range c.kinds {
		if !k.Namespaced() {
			if c.mem.GetRef(model.Ref{Kind: k, Name: key}) != nil {
				return nil
			}
			continue
		}
		if k != model.KindCustom && c.mem.GetRef(model.Ref{Kind: k, Namespace: m.Namespace, Name: key}) != nil {
			named = true
		}
	}
	if !named {
		return nil
	}
	return bareKeyError(c.user.spec.Name, key, e.Obj)
}

func hasNamespace(key string) bool {
	ns, _ := model.SplitKey(key)
	return ns != ""
}

func bareKeyError(spec, key string, o model.Obj) error {
	return fmt.Errorf("cluster: controller %s: Keys returned %q for %s: a namespaced object's queue key is namespace/name (%q), "+
		"as client-go's MetaNamespaceKeyFunc makes it (model.KeyOf); only a cluster-scoped object's key is its bare name",
		spec, key, model.RefOf(o), model.Key(model.MetaOf(o).Namespace, key))
}
