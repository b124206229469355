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
	key := store.Key{Resource: "pods", Namespace: namespace, Name: pod}
	for {
		// The model's order: the node first, then the pod.
		if err := r.nodeReady(ctx, pod, node); err != nil {
			return nil, err
		}
		obj, rev, err := r.get(ctx, info, namespace, pod)
		if err != nil {
			return nil, err
		}
		p := obj.(*api.Pod)
		if p.Spec.NodeName != "" {
			return nil, api.NewConflict(bindingResource, pod,
				fmt.Errorf("pod %s is already assigned to node %q", pod, p.Spec.NodeName))
		}
		if want != 0 && want != rev {
			return nil, api.NewOptimisticLockConflict(bindingResource, pod)
		}
		p.Spec.NodeName = node
		value, err := encode(p)
		if err != nil {
			return nil, err
		}
		newRev, err := r.store.Update(ctx, key, value, rev)
		if want == 0 && errors.Is(err, store.ErrConflict) {
			continue
		}
		if err != nil {
			return nil, storeError(ctx, err, bindingResource, pod)
		}
		p.ResourceVersion = formatRV(newRev)
		return p, nil
	}
}

// nodeReady is the admission rule the model calls ErrNodeNotReady: the
// target node must exist and report Ready=True.
func (r *Registry) nodeReady(ctx context.Context, pod, node string) error {
	so, err := r.store.Get(ctx, store.Key{Resource: "nodes", Name: node})
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return storeError(ctx, err, api.GroupResource{Resource: "nodes"}, node)
	}
	if err == nil {
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
