package model

// The invariants of deletion (issue 16): finalizers hold objects, no
// controller adds dependents to an owner it sees going, and the garbage
// collector lets a foreground-deleted owner go only after its dependents,
// and an orphaning one only after it has freed them.

// checkDeletion checks one write; stored is the state before it (see
// ownership.go) and s the state after the step.
func checkDeletion(stored storedBefore, s *Snapshot, w Write) error {
	if w.Err != nil || w.Local != "" {
		return nil
	}
	if w.Verb == VerbCreate && w.OwnerDeleting {
		return violation("no controller creates a dependent of an owner being deleted",
			"%s created %s for %s, which its view showed being deleted", w.Actor, w.Ref, OwnerRef(w.After.meta()))
	}
	if w.Before == nil {
		return nil
	}
	if w.Ref.Kind == KindNamespace && w.After == nil {
		if o := objectIn(s.Objects, w.Ref.Name); o != nil {
			return violation("a Terminating namespace ends empty, and then it is gone",
				"%s removed %s while %s remains in it", w.Actor, w.Ref, RefOf(o))
		}
	}
	bm := w.Before.meta()
	if w.Verb == VerbDelete && w.After == nil {
		if fs := userFinalizers(bm); len(fs) > 0 {
			return violation("nothing with finalizers is removed", "%s removed %s while it had finalizers %v", w.Actor, w.Ref, fs)
		}
	}
	if w.Actor != GarbageCollector || w.Verb != VerbUpdate {
		return nil
	}
	dropped := func(f string) bool {
		return bm.HasFinalizer(f) && (w.After == nil || !w.After.meta().HasFinalizer(f))
	}
	if dropped(FinalizerForeground) {
		if d := dependentIn(s.Objects, bm.UID); d != nil {
			return violation("a foreground-deleted owner goes only after its dependents",
				"%s dropped %s's foregroundDeletion finalizer while %s remains", w.Actor, w.Ref, RefOf(d))
		}
	}
	if dropped(FinalizerOrphan) {
		if d := dependentIn(s.Objects, bm.UID); d != nil {
			return violation("an orphaned dependent keeps no reference to its owner",
				"%s dropped %s's orphan finalizer while %s still names it", w.Actor, w.Ref, RefOf(d))
		}
		for r, o := range stored.prev {
			if o.meta().Owner.UID != bm.UID {
				continue
			}
			if cur := s.Objects[r]; cur == nil || cur.meta().UID != o.meta().UID {
				return violation("an orphaned dependent keeps existing",
					"%s, a dependent of orphan-deleted %s, is gone", r, w.Ref)
			}
		}
	}
	return nil
}

// objectIn is an object of objs in namespace ns, nil if none.
func objectIn(objs map[Ref]Obj, ns string) Obj {
	for _, o := range objs {
		if o.meta().Namespace == ns {
			return o
		}
	}
	return nil
}

// dependentIn is an object of objs whose controller has uid, nil if none.
func dependentIn(objs map[Ref]Obj, uid int64) Obj {
	for _, o := range objs {
		if o.meta().Owner.UID == uid {
			return o
		}
	}
	return nil
}
