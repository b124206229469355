package properties

import "strings"

// Once the apiserver refused a user's input that a reconcile passed on
// (Outcome.Refused), the custom resource's children keep what its last
// accepted input made of them, as in a cluster: its end state is no
// longer a function of its final inputs alone, and the reference, which
// settles inputs in its own order, may have accepted another. The
// differential leaves out that custom resource and what it owns,
// transitively, on both sides, and compares everything else: another
// custom resource's children are no one's refused input. The teeth test
// is TestRefusedInputLeavesTheOthersCompared.

// withoutRefused is state without the custom resources of refusedOwners
// and their dependents (by ownerReferences); state is left as it is.
func (r *operatorRun) withoutRefused(state map[string]map[string]any) map[string]map[string]any {
	if len(r.refusedOwners) == 0 {
		return state
	}
	gone := map[string]bool{}
	for key := range state {
		kind, name, _ := strings.Cut(key, " ")
		if r.isCustomKind(kind) && r.refusedOwners[name] {
			gone[key] = true
		}
	}
	for grew := len(gone) > 0; grew; {
		grew = false
		for key, obj := range state {
			if gone[key] {
				continue
			}
			for _, owner := range ownerKeys(key, obj) {
				if gone[owner] {
					gone[key], grew = true, true
					break
				}
			}
		}
	}
	out := make(map[string]map[string]any, len(state))
	for key, obj := range state {
		if !gone[key] {
			out[key] = obj
		}
	}
	return out
}

func (r *operatorRun) isCustomKind(kind string) bool {
	for _, k := range r.kinds {
		if k.gvk.Kind == kind {
			return true
		}
	}
	return false
}

// ownerKeys are the state keys every owner the object names may have:
// in its namespace, or cluster-scoped.
func ownerKeys(key string, obj map[string]any) []string {
	meta, _ := obj["metadata"].(map[string]any)
	refs, _ := meta["ownerReferences"].([]any)
	_, rest, _ := strings.Cut(key, " ")
	ns, _, namespaced := strings.Cut(rest, "/")
	var out []string
	for _, ref := range refs {
		m, _ := ref.(map[string]any)
		kind, _ := m["kind"].(string)
		name, _ := m["name"].(string)
		out = append(out, kind+" "+name) // a cluster-scoped owner
		if namespaced {
			out = append(out, kind+" "+ns+"/"+name)
		}
	}
	return out
}
