package main

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/tools/cache"
)

// reconcile brings the Greeting of key's ConfigMap and status to its
// spec, from the informers' caches.
func (c *controller) reconcile(ctx context.Context, key string) error {
	ns, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return nil // a key that cannot be split never will be
	}
	obj, err := c.greetings.ByNamespace(ns).Get(name)
	if apierrors.IsNotFound(err) {
		return nil // gone: the garbage collector takes its ConfigMap
	}
	if err != nil {
		return err
	}
	g := obj.(*unstructured.Unstructured)
	if g.GetDeletionTimestamp() != nil {
		return nil
	}
	message, _, _ := unstructured.NestedString(g.Object, "spec", "message")
	if err := c.ensureConfigMap(ctx, g, message); err != nil {
		return err
	}
	return c.writeStatus(ctx, g)
}

// ensureConfigMap creates the Greeting's ConfigMap, or updates its
// message.
func (c *controller) ensureConfigMap(ctx context.Context, g *unstructured.Unstructured, message string) error {
	name := g.GetName() + "-greeting"
	cms := c.kube.CoreV1().ConfigMaps(g.GetNamespace())
	item, exists, err := c.configMaps.GetIndexer().GetByKey(g.GetNamespace() + "/" + name)
	if err != nil {
		return err
	}
	if !exists {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: g.GetNamespace()},
			Data: map[string]string{"message": message}}
		if c.bug != "no-owner-reference" {
			cm.OwnerReferences = []metav1.OwnerReference{*metav1.NewControllerRef(g, g.GroupVersionKind())}
		}
		_, err := cms.Create(ctx, cm, metav1.CreateOptions{})
		return err // AlreadyExists: the cache is behind, and the retry sees it
	}
	cm := item.(*corev1.ConfigMap)
	if owner := metav1.GetControllerOf(cm); owner != nil && owner.UID != g.GetUID() {
		// A previous Greeting of this name owns it: the garbage
		// collector removes it, and the retry then makes this one's.
		return fmt.Errorf("configmap %s belongs to a previous greeting (uid %s)", name, owner.UID)
	}
	if cm.Data["message"] == message {
		return nil
	}
	cm = cm.DeepCopy()
	if cm.Data == nil {
		cm.Data = map[string]string{}
	}
	cm.Data["message"] = message
	_, err = cms.Update(ctx, cm, metav1.UpdateOptions{})
	return err
}

// writeStatus records the generation the ConfigMap now shows.
func (c *controller) writeStatus(ctx context.Context, g *unstructured.Unstructured) error {
	seen, _, _ := unstructured.NestedInt64(g.Object, "status", "observedGeneration")
	if seen == g.GetGeneration() {
		return nil
	}
	g = g.DeepCopy()
	if err := unstructured.SetNestedField(g.Object, g.GetGeneration(), "status", "observedGeneration"); err != nil {
		return err
	}
	_, err := c.dyn.Resource(greetings).Namespace(g.GetNamespace()).UpdateStatus(ctx, g, metav1.UpdateOptions{})
	return err
}
