package model

import "errors"

// Namespaces as the apiserver keeps them: a namespace is created with
// spec.finalizers ["kubernetes"]; deleting it only marks it Terminating;
// no object may be created in a Terminating or missing namespace; and the
// namespace goes once its finalizers are gone. Taking "kubernetes" away
// is the namespace controller's (namespacecontroller.go), through the
// finalize subresource, once the namespace is empty.

// FinalizerKubernetes is the namespace controller's spec finalizer.
const FinalizerKubernetes = "kubernetes"

// ErrNamespaceTerminating is Kubernetes' 403 for a create in a namespace
// being deleted (status cause NamespaceTerminating).
var ErrNamespaceTerminating = errors.New("model: namespace is being terminated")

// NewNamespace is the Namespace a user creates; the store adds its
// finalizer.
func NewNamespace(name string) *Namespace {
	return &Namespace{Meta: Meta{Name: name}}
}

// namespaceOpen admits a create of r: its namespace is DefaultNamespace or
// exists and is not being deleted, as upstream's NamespaceLifecycle
// admission plugin.
func (s *store) namespaceOpen(r Ref) error {
	if r.Namespace == "" || r.Namespace == DefaultNamespace {
		return nil
	}
	ns := s.objs[Ref{Kind: KindNamespace, Name: r.Namespace}]
	switch {
	case ns == nil:
		return errorFor(ErrNotFound, r)
	case ns.meta().Deleting:
		return errorFor(ErrNamespaceTerminating, r)
	}
	return nil
}

// namespaceFinalizing: o is a namespace its controller has not finalized
// yet, which nothing but its finalize may let go.
func namespaceFinalizing(o Obj) bool {
	ns, ok := o.(*Namespace)
	return ok && ns.Finalize
}

// namespaceUpdate is what an update of a namespace stores: a finalize
// changes spec.finalizers only, any other update anything but them.
func namespaceUpdate(verb Verb, cur, o Obj) Obj {
	c, ok := cur.(*Namespace)
	n, _ := o.(*Namespace)
	if !ok || n == nil {
		return o
	}
	if verb != VerbFinalize {
		n.Finalize = c.Finalize
		return n
	}
	f := c.shallow().(*Namespace)
	f.Finalize = n.Finalize
	return f
}
