package mutants

import (
	"context"
	corev1 "k8s.io/api/core/v1"
	"slices"

	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/impl/client"
	"github.com/converge-dev/converge/impl/cluster"
	"github.com/converge-dev/converge/impl/controller"
	"github.com/converge-dev/converge/impl/registry"
	"github.com/converge-dev/converge/model"
)

// apiNamespaceController is a namespace controller written against the
// API, for keys that name a namespace: once it is Terminating it deletes
// what it holds and, when nothing is left, finalizes it. Its bug:
// objects already being deleted do not count as left, so it finalizes
// while pods still terminate.
type apiNamespaceController struct {
	client client.Client
	cache  func(model.Kind) *controller.Cache
}

func newTerminatingForgettingNamespaces(env cluster.ControllerEnv) controller.Reconciler {
	return &apiNamespaceController{client: env.Client, cache: env.Cache}
}

// namespacedResources are what the model's namespaces hold.
var namespacedResources = []string{"deployments", "replicasets", "pods", "services", "endpoints"}

func (n *apiNamespaceController) Reconcile(ctx context.Context, req controller.Request) (controller.Result, error) {
	ns, ok := get[*api.Namespace](n.cache(model.KindNamespace), controller.Request{Name: req.Name})
	if !ok || ns.DeletionTimestamp == nil || !slices.Contains(ns.Spec.Finalizers, model.FinalizerKubernetes) {
		return controller.Result{}, nil
	}
	background := api.DeletePropagationBackground
	left := 0
	for _, resource := range namespacedResources {
		l, err := n.client.List(ctx, resource, req.Name, registry.ListOptions{})
		if err != nil {
			return controller.Result{}, err
		}
		for _, o := range api.Items(l) {
			m := api.Meta(o)
			if m.DeletionTimestamp != nil {
				continue // the bug: being deleted is taken for gone
			}
			left++
			if _, err := n.client.Delete(ctx, resource, req.Name, m.Name, api.DeleteOptions{PropagationPolicy: &background}); ignoreNotFound(err) != nil {
				return controller.Result{}, err
			}
		}
	}
	if left > 0 {
		return controller.Result{Requeue: true}, nil
	}
	live, err := n.client.Get(ctx, "namespaces", "", req.Name)
	if err != nil {
		return controller.Result{}, ignoreNotFound(err)
	}
	fin := live.(*api.Namespace)
	fin.Spec.Finalizers = slices.DeleteFunc(slices.Clone(fin.Spec.Finalizers), func(f corev1.FinalizerName) bool { return f == model.FinalizerKubernetes })
	_, err = n.client.FinalizeNamespace(ctx, fin)
	return controller.Result{}, ignoreNotFound(err)
}
