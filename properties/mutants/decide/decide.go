// Package decide holds the mutant catalogue's wrong decisions for the
// model's shared decision code (model.Decisions): each wraps a shipped
// decision and changes one thing. Installed in a model.Config and a
// cluster.SteppedConfig, a mutant runs on both sides of the lockstep.
//
// The catalogue itself is package mutants (properties/mutants), one entry
// per bug and one name; this package imports only the model so that the
// model's and the traces' own tests can install a mutant too.
//
// Guarantees:
//   - A decision here differs from the shipped one by the one bug its
//     mutant names, and is as deterministic as the shipped one.
//   - Nothing outside tests and `converge check --mutant` installs one.
package decide

import "github.com/converge-dev/converge/model"

// ReplicaSetNoExpectations counts pods from a stale cache: the replicaset
// controller forgets its expectations before every reconcile, so a create
// it has not seen yet is made again.
var ReplicaSetNoExpectations = model.Decisions{
	model.ReplicaSetController: func(m *model.Memory, h model.Host, w model.Writer, key string) {
		m.ForgetExpectations(key)
		model.Shipped(model.ReplicaSetController)(m, h, w, key)
	},
}

// EndpointsListsUnready lists every selected pod with an IP, ready or not:
// the endpoints controller decides from a view in which every pod is ready.
var EndpointsListsUnready = model.Decisions{
	model.EndpointsController: func(m *model.Memory, h model.Host, w model.Writer, key string) {
		model.Shipped(model.EndpointsController)(allReady(m), h, w, key)
	},
}

// GCTrustsCache deletes a dependent whose owner is missing from a stale
// view: the garbage collector's live read of the owner finds nothing.
var GCTrustsCache = model.Decisions{
	model.GarbageCollector: func(m *model.Memory, h model.Host, w model.Writer, key string) {
		model.Shipped(model.GarbageCollector)(m, noLiveReads{h}, w, key)
	},
}

// ReplicaSetIgnoresDeletion manages the pods of a ReplicaSet being deleted
// as if it were not: it replaces the pods the garbage collector deletes in
// a foreground cascade.
var ReplicaSetIgnoresDeletion = model.Decisions{
	model.ReplicaSetController: func(m *model.Memory, h model.Host, w model.Writer, key string) {
		rs, _ := m.Get(model.KindReplicaSet, key).(*model.ReplicaSet)
		if rs == nil || !rs.Deleting {
			model.Shipped(model.ReplicaSetController)(m, h, w, key)
			return
		}
		alive := *rs
		alive.Deleting = false
		view := m.Copy()
		view.Put(&alive)
		model.Shipped(model.ReplicaSetController)(view, h, w, key)
	},
}

// GCForgetsTerminating lets a foreground-deleted owner go once its
// dependents are all being deleted, without waiting for them to be gone:
// its live list of dependents leaves out the terminating ones.
var GCForgetsTerminating = model.Decisions{
	model.GarbageCollector: func(m *model.Memory, h model.Host, w model.Writer, key string) {
		model.Shipped(model.GarbageCollector)(m, hideTerminating{h}, w, key)
	},
}

// hideTerminating is a host whose live lists leave out objects being
// deleted.
type hideTerminating struct{ model.Host }

func (h hideTerminating) LiveList(k model.Kind) ([]model.Obj, error) {
	objs, err := h.Host.LiveList(k)
	var out []model.Obj
	for _, o := range objs {
		if !model.MetaOf(o).Deleting {
			out = append(out, o)
		}
	}
	return out, err
}

// allReady is a copy of m's view in which every pod is ready.
func allReady(m *model.Memory) *model.Memory {
	d := model.NewMemory(m.Name)
	d.Rev = m.Rev
	for _, o := range m.Objects() {
		if p, ok := o.(*model.Pod); ok && !p.Ready {
			cp := *p
			cp.Ready = true
			o = &cp
		}
		d.Put(o)
	}
	return d
}

// noLiveReads is a host whose live reads find nothing.
type noLiveReads struct{ model.Host }

func (noLiveReads) Live(model.Ref) model.Obj { return nil }

// NamespaceForgetsTerminating finalizes a Terminating namespace once what
// it holds is being deleted, not gone: its live lists leave out the
// objects being deleted, so pods still terminating outlive their
// namespace.
var NamespaceForgetsTerminating = model.Decisions{
	model.NamespaceController: func(m *model.Memory, h model.Host, w model.Writer, key string) {
		model.Shipped(model.NamespaceController)(m, hideTerminating{h}, w, key)
	},
}
