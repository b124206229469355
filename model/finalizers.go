package model

import (
	"errors"
	"slices"
)

// Finalizers the garbage collector acts on, and the one user actions add
// (an operator's cleanup hook, such as example.com/hold).
const (
	FinalizerForeground = "foregroundDeletion"
	FinalizerOrphan     = "orphan"
	UserFinalizer       = "example.com/hold"
)

// ErrFinalizerForbidden is Kubernetes' 422 for an update that adds a
// finalizer to an object being deleted.
var ErrFinalizerForbidden = errors.New("model: no new finalizers can be added if the object is being deleted")

// Propagation is a delete's propagationPolicy. PropagateDefault is a delete
// that names none (a controller's); kubectl always names one, Background
// unless told otherwise.
type Propagation uint8

const (
	PropagateDefault Propagation = iota
	PropagateBackground
	PropagateForeground
	PropagateOrphan
)

var propagationNames = [...]string{"", "background", "foreground", "orphan"}

// String is kubectl's --cascade spelling ("" for the default).
func (p Propagation) String() string {
	if int(p) < len(propagationNames) {
		return propagationNames[p]
	}
	return "propagation(?)"
}

// ParsePropagation reads kubectl's --cascade spelling.
func ParsePropagation(s string) (Propagation, bool) {
	i := slices.Index(propagationNames[1:], s)
	return Propagation(i + 1), i >= 0
}

// HasFinalizer tells whether m carries f.
func (m *Meta) HasFinalizer(f string) bool { return slices.Contains(m.Finalizers, f) }

// withoutFinalizer is fs without f, sharing nothing with fs.
func withoutFinalizer(fs []string, f string) []string {
	var out []string
	for _, x := range fs {
		if x != f {
			out = append(out, x)
		}
	}
	return out
}

// deletionFinalizers is the finalizer list a delete leaves, as the
// apiserver computes it for the garbage collector: the two GC finalizers
// are dropped, then the one the policy asks for is appended. A delete that
// names no policy keeps the ones the object has.
func deletionFinalizers(fs []string, p Propagation) []string {
	orphan := p == PropagateOrphan || (p == PropagateDefault && slices.Contains(fs, FinalizerOrphan))
	foreground := p == PropagateForeground || (p == PropagateDefault && slices.Contains(fs, FinalizerForeground))
	out := withoutFinalizer(withoutFinalizer(fs, FinalizerOrphan), FinalizerForeground)
	if orphan {
		out = append(out, FinalizerOrphan)
	}
	if foreground {
		out = append(out, FinalizerForeground)
	}
	if sameFinalizerSet(fs, out) {
		return fs
	}
	return out
}

func sameFinalizerSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for _, f := range a {
		if !slices.Contains(b, f) {
			return false
		}
	}
	return true
}

// addsFinalizer tells whether next carries a finalizer prev does not.
func addsFinalizer(prev, next []string) bool {
	for _, f := range next {
		if !slices.Contains(prev, f) {
			return true
		}
	}
	return false
}

// OwnerDeletingIn tells whether view shows o's controller owner being
// deleted; writers set Write.OwnerDeleting with it before a create.
func OwnerDeletingIn(view *Memory, o Obj) bool {
	ow := o.meta().Owner
	if view == nil || ow.UID == 0 {
		return false
	}
	cur := view.GetRef(OwnerRef(o.meta()))
	return cur != nil && cur.meta().UID == ow.UID && cur.meta().Deleting
}

// userFinalizers are o's finalizers other than the garbage collector's,
// which a delete's policy may drop.
func userFinalizers(m *Meta) []string {
	return withoutFinalizer(withoutFinalizer(m.Finalizers, FinalizerOrphan), FinalizerForeground)
}

// namespaceHeld: something is left in namespace ns, and users' finalizers
// hold all of it, so the namespace stays Terminating.
func namespaceHeld(objs map[Ref]Obj, ns string, held map[int64]bool) bool {
	any := false
	for _, o := range objs {
		if o.meta().Namespace == ns {
			if !held[o.meta().UID] {
				return false
			}
			any = true
		}
	}
	return any
}

// heldByUsers are the objects a user's finalizer holds, directly or
// through their dependents: being deleted, with no kubelet to wait for,
// and only users' finalizers left, or also foregroundDeletion while every
// dependent left is held. Nothing in the control plane can let those go.
func heldByUsers(objs map[Ref]Obj) map[int64]bool {
	deps := map[int64][]Obj{}
	for _, o := range objs {
		if uid := o.meta().Owner.UID; uid != 0 {
			deps[uid] = append(deps[uid], o)
		}
	}
	held := map[int64]bool{}
	var isHeld func(o Obj, depth int) bool
	isHeld = func(o Obj, depth int) bool {
		m := o.meta()
		if v, ok := held[m.UID]; ok {
			return v
		}
		users := userFinalizers(m)
		ok := m.Deleting && !m.Graceful && depth < 8 && !m.HasFinalizer(FinalizerOrphan)
		switch {
		case !ok:
		case !m.HasFinalizer(FinalizerForeground):
			ok = len(users) > 0
		default:
			ok = len(deps[m.UID]) > 0
			for _, d := range deps[m.UID] {
				ok = ok && isHeld(d, depth+1)
			}
		}
		held[m.UID] = ok
		return ok
	}
	for _, o := range objs {
		isHeld(o, 0)
	}
	return held
}
