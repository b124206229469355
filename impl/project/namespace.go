package project

import (
	"slices"

	corev1 "k8s.io/api/core/v1"

	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/model"
)

// namespaceToModel: the model keeps whether the namespace controller's
// spec finalizer is still there (phase Terminating is the deletion mark).
func namespaceToModel(n *api.Namespace, m model.Meta) *model.Namespace {
	return &model.Namespace{Meta: m, Finalize: slices.Contains(n.Spec.Finalizers, model.FinalizerKubernetes)}
}

func newNamespace(o *model.Namespace) *api.Namespace {
	n := &api.Namespace{TypeMeta: typeMeta(model.KindNamespace), ObjectMeta: objectMeta(model.KindNamespace, &o.Meta, nil)}
	applyNamespace(n, o)
	return n
}

// applyNamespace writes spec.finalizers' "kubernetes", leaving any other
// finalizer there.
func applyNamespace(n *api.Namespace, o *model.Namespace) {
	has := slices.Contains(n.Spec.Finalizers, model.FinalizerKubernetes)
	switch {
	case o.Finalize && !has:
		n.Spec.Finalizers = append(slices.Clone(n.Spec.Finalizers), model.FinalizerKubernetes)
	case !o.Finalize && has:
		n.Spec.Finalizers = slices.DeleteFunc(slices.Clone(n.Spec.Finalizers), func(f corev1.FinalizerName) bool { return f == model.FinalizerKubernetes })
	}
}
