package registry

import (
	"context"
	"errors"
	"fmt"
	"slices"

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
	key := store.Key{Resource: "pods", Namespace: namespace, Name: pod}
	for {
		// One read of both, at one revision; the model's order of checks:
		// the node first, then the pod.
		got, err := r.store.GetMany(ctx, store.Key{Resource: "nodes", Name: node}, key)
		if err != nil {
			return nil, storeError(ctx, err, info.GroupResource(), pod)
		}
		if err := nodeReady(got[0], pod, node); err != nil {
			return nil, err
		}
		if got[1].Rev == 0 {
			return nil, api.NewNotFound(info.GroupResource(), pod)
		}
		obj, err := decode("pods", got[1].Value, got[1].Rev)
		if err != nil {
			return nil, err
		}
		p, rev := obj.(*api.Pod), got[1].Rev
		if p.Spec.NodeName != "" {
			return nil, api.NewConflict(bindingResource, pod,
				fmt.Errorf("pod %s is already assigned to node %q", pod, p.Spec.NodeName))
		}
		if want != 0 && want != rev {
			return nil, api.NewOptimisticLockConflict(bindingResource, pod)
		}
		p.Spec.NodeName = node
		// As upstream's binding does: the pod is scheduled as of now.
		scheduled := api.PodCondition{Type: "PodScheduled", Status: api.ConditionTrue, LastTransitionTime: api.NewTime(r.clock())}
		p.Status.Conditions = append(slices.DeleteFunc(p.Status.Conditions, func(c api.PodCondition) bool { return c.Type == scheduled.Type }), scheduled)
		value, err := encode(p)
		if err != nil {
			return nil, err
		}
		if isDryRun(ctx) {
			p.ResourceVersion = formatRV(rev)
			return p, nil
		}
		newRev, err := r.store.Update(ctx, key, value, rev)
		if want == 0 && errors.Is(err, store.ErrConflict) {
			continue
		}
		if err != nil {
			return nil, storeError(ctx, err, bindingResource, pod)
		}
		r.recent.put(key, value, newRev)
		p.ResourceVersion = formatRV(newRev)
		return p, nil
	}
}

// nodeReady is the admission rule the model calls ErrNodeNotReady: the
// target node must exist and report Ready=True.
func nodeReady(so store.Object, pod, node string) error {
	if so.Rev != 0 {
		obj, err := decode("nodes", so.Value, so.Rev)
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
