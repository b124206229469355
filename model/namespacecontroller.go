package model

// The namespace controller: watches Namespaces and everything that lives
// in one; a key is a namespace's name. Once a namespace is Terminating it
// deletes what the namespace holds (in the background, as upstream's
// deleter does), and once a live list shows nothing left it takes its
// "kubernetes" finalizer away through the finalize subresource, which lets
// the namespace go. While content is left it retries, as upstream's
// requeues a namespace until it is empty; it watches only Namespaces.
var namespaceRole = role{
	watches: kinds(KindNamespace),
	keyKind: KindNamespace,
	keys: func(c *Memory, e WatchEvent) []string {
		if e.Obj.meta().Deleting && e.Type != Deleted {
			return []string{e.Obj.meta().Name}
		}
		return nil
	},
	resync: func(c *Memory, h Host) []string {
		var out []string
		for _, ns := range c.List(KindNamespace) {
			if ns.meta().Deleting {
				out = append(out, ns.meta().Name)
			}
		}
		return out
	},
	reconcile: reconcileNamespace,
}

// namespacedKinds are the kinds a namespace holds, in the order the
// controller deletes them (KindCustom's live list holds every kind the
// model lacks, as upstream's deleter goes through every resource).
var namespacedKinds = []Kind{KindDeployment, KindReplicaSet, KindPod, KindService, KindEndpoints, KindEndpointSlice, KindCustom, KindStatefulSet, KindPersistentVolumeClaim}

func reconcileNamespace(c *Memory, h Host, t Writer, key string) {
	ns, _ := c.Get(KindNamespace, key).(*Namespace)
	if ns == nil || !ns.Deleting || !ns.Finalize {
		return
	}
	left, ok := emptyNamespace(h, t, key)
	if t.Stopped() {
		return
	}
	if !ok || left {
		t.Retry() // content is still going
		return
	}
	// Empty: finalize the namespace as it is now, not as the view has it.
	live, _ := h.Live(RefOf(ns)).(*Namespace)
	if live == nil || live.UID != ns.UID || !live.Finalize {
		return
	}
	n := live.shallow().(*Namespace)
	n.Finalize = false
	t.Update(VerbFinalize, live, n)
}

// emptyNamespace deletes every object live in namespace ns that is not
// already being deleted; left says whether anything was there.
func emptyNamespace(h Host, t Writer, ns string) (left, ok bool) {
	for _, k := range namespacedKinds {
		objs, err := h.LiveList(k)
		if err != nil {
			return true, false
		}
		for _, o := range objs {
			if o.meta().Namespace != ns {
				continue
			}
			left = true
			if !o.meta().Deleting {
				if t.DeleteWith(o, PropagateBackground); t.Stopped() {
					return true, true
				}
			}
		}
	}
	return left, true
}
