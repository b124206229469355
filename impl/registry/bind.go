package registry

import (
	"context"
	"errors"
	"fmt"

	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/impl/store"
)

// bindingResource names the binding subresource in error messages, as
// Kubernetes does ("pods/binding").
var bindingResource = api.GroupResource{Resource: "pods/binding"}

// Bind assigns a pod to a node through the binding subresource and returns
// the bound pod. expectRV, when not "", is a precondition on the pod's
// resourceVersion.
func (r *Registry) Bind(ctx context.Context, namespace, pod, node, expectRV string) (api.Object, error) {
	if namespace == "" {
		namespace = api.DefaultNamespace
	}
	b := &api.Binding{
		ObjectMeta: api.ObjectMeta{Name: pod, Namespace: namespace},
		Target:     api.ObjectReference{Kind: "Node", Name: node},
	}
	if err := api.Validate(b); err != nil {
		return nil, err
	}
	want, err := parseRV(expectRV)
	if err != nil {
		return nil, err
	}
	info, err := lookup("pods")
	if err != nil {
		return nil, err
	}
	key, nodeKey := store.Key{Resource: "pods", Namespace: namespace, Name: pod}, store.Key{Resource: "nodes", Name: node}
	for attempt := 0; ; attempt++ {
		// The first attempt of a binding with a precondition starts from
		// the values this registry last saw, if it has both, and its write
		// is guarded by the node's revision: the same as reading both at
		// the write's revision. Anything it finds wrong is checked again
		// from a fresh read, which is what errors are reported from.
		got, remembered := r.recentPair(ctx, nodeKey, key, want, attempt)
		if !remembered {
			// One read of both, at one revision; the model's order of
			// checks: the node first, then the pod.
			if got, err = r.store.GetMany(ctx, nodeKey, key); err != nil {
				return nil, storeError(ctx, err, info.GroupResource(), pod)
			}
		}
		if err := r.nodeReady(got[0], pod, node); err != nil {
			if remembered {
				continue
			}
			return nil, err
		}
		if got[1].Rev == 0 {
			return nil, api.NewNotFound(info.GroupResource(), pod)
		}
		stored, err := r.recent.view("pods", got[1])
		if err != nil {
			return nil, err
		}
		// The bound pod shares all but what it changes with the stored
		// one, which nobody changes (see shallowCopy).
		p, rev := shallowCopy(stored).(*api.Pod), got[1].Rev
		if p.Spec.NodeName != "" && remembered {
			continue
		}
		if p.Spec.NodeName != "" {
			return nil, api.NewConflict(bindingResource, pod,
				fmt.Errorf("pod %s is already assigned to node %q", pod, p.Spec.NodeName))
		}
		if want != 0 && want != rev {
			return nil, api.NewOptimisticLockConflict(bindingResource, pod)
		}
		if len(p.Spec.SchedulingGates) > 0 {
			return nil, api.NewInternalError(fmt.Errorf("pod %s has non-empty .spec.schedulingGates", p.Name))
		}
		p.Spec.NodeName = node
		// As upstream's binding does: the pod is scheduled as of now.
		scheduled := api.PodCondition{Type: "PodScheduled", Status: api.ConditionTrue, LastTransitionTime: api.NewTime(r.clock())}
		conditions := make([]api.PodCondition, 0, len(p.Status.Conditions)+1)
		for _, c := range p.Status.Conditions {
			if c.Type != scheduled.Type {
				conditions = append(conditions, c)
			}
		}
		p.Status.Conditions = append(conditions, scheduled)
		value, err := encode(p)
		if err != nil {
			return nil, err
		}
		if IsDryRun(ctx) {
			p.ResourceVersion = formatRV(rev)
			return answer(ctx, p, true), nil
		}
		pending := r.startWrite(key, value, p)
		var newRev int64
		if remembered {
			newRev, err = r.store.UpdateGuarded(ctx, key, value, rev, nodeKey, got[0].Rev)
		} else {
			newRev, err = r.store.Update(ctx, key, value, rev)
		}
		if (want == 0 || remembered) && errors.Is(err, store.ErrConflict) {
			continue
		}
		if err != nil {
			return nil, storeError(ctx, err, bindingResource, pod)
		}
		return r.finishWrite(ctx, pending, store.Object{Key: key, Value: value, Rev: newRev}, p, true), nil
	}
}

// recentPair returns the node's and the pod's values as this registry
// last saw them, for a binding's first attempt (attempt 0) with a
// precondition (want), when it holds the pod at that revision. A dry run
// writes nothing that a guard could check, so it always reads.
func (r *Registry) recentPair(ctx context.Context, nodeKey, podKey store.Key, want int64, attempt int) ([]store.Object, bool) {
	if attempt > 0 || want == 0 || IsDryRun(ctx) {
		return nil, false
	}
	n, ok := r.recent.latest(nodeKey)
	if !ok {
		return nil, false
	}
	p, ok := r.recent.at(podKey, want)
	if !ok {
		return nil, false
	}
	return []store.Object{n, p}, true
}

// nodeReady is the admission rule the model calls ErrNodeNotReady: the
// target node must exist and report Ready=True.
func (r *Registry) nodeReady(so store.Object, pod, node string) error {
	if so.Rev != 0 {
		obj, err := r.recent.view("nodes", so) // only read
		if err != nil {
			return err
		}
		for _, c := range obj.(*api.Node).Status.Conditions {
			if c.Type == api.NodeReady && c.Status == api.ConditionTrue {
				return nil
			}
		}
	}
	return api.NewConflict(bindingResource, pod, fmt.Errorf("node %q missing or not ready", node))
}
