package broker

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	mqv1 "github.com/converge-dev/converge/examples/foreign/broker/api/v1"
)

// RegistryName is the ConfigMap that lists a namespace's brokers, one key
// per Broker, for clients that discover them. All Brokers of the namespace
// share it, so none owns it: each adds its entry, removes it on delete,
// and the last one deletes the registry.
const RegistryName = "broker-registry"

func address(b *mqv1.Broker) string {
	return fmt.Sprintf("%s.%s.svc:%d", b.Name, b.Namespace, b.Spec.Port)
}

// register puts the Broker's entry in the registry. Every write is
// conditioned on the version read (Update carries the resourceVersion), so
// a concurrent change of another entry is a conflict, retried.
func (r *Reconciler) register(ctx context.Context, b *mqv1.Broker) error {
	var reg corev1.ConfigMap
	err := r.Get(ctx, client.ObjectKey{Namespace: b.Namespace, Name: RegistryName}, &reg)
	if apierrors.IsNotFound(err) {
		reg = corev1.ConfigMap{Data: map[string]string{b.Name: address(b)}}
		reg.Name, reg.Namespace = RegistryName, b.Namespace
		reg.Labels = map[string]string{"app.kubernetes.io/managed-by": "broker-operator"}
		err = r.Create(ctx, &reg)
		// BugRegistryExistsIsDone: AlreadyExists taken as registered
		// (ISSTA'24: incorrect handling of existing resources).
		if BugRegistryExistsIsDone && apierrors.IsAlreadyExists(err) {
			return nil
		}
		return err
	}
	if err != nil {
		return err
	}
	if reg.Data[b.Name] == address(b) {
		return nil
	}
	if reg.Data == nil {
		reg.Data = map[string]string{}
	}
	reg.Data[b.Name] = address(b)
	// BugRegistryMergePatch: the whole cached map as an unconditioned merge
	// patch (Sieve stale state; ISSTA'24 concurrency).
	if BugRegistryMergePatch {
		patch := &corev1.ConfigMap{Data: reg.Data}
		patch.Name, patch.Namespace = reg.Name, reg.Namespace
		return r.Patch(ctx, patch, client.Merge)
	}
	return r.Update(ctx, &reg)
}

// deregister removes the Broker's entry; the last entry takes the registry
// with it, by a delete conditioned on the version read.
// It reads the registry past the cache: a cached copy that does not yet
// show the entry (the write that added it not yet delivered) would let the
// finalizer go and leave the entry behind for good (Sieve stale state).
func (r *Reconciler) deregister(ctx context.Context, b *mqv1.Broker) error {
	var reg corev1.ConfigMap
	var reader client.Reader = r.Client
	if r.APIReader != nil {
		reader = r.APIReader
	}
	err := reader.Get(ctx, client.ObjectKey{Namespace: b.Namespace, Name: RegistryName}, &reg)
	if err != nil {
		return client.IgnoreNotFound(err)
	}
	if _, ok := reg.Data[b.Name]; !ok {
		return nil
	}
	if len(reg.Data) == 1 {
		uid, rv := reg.UID, reg.ResourceVersion
		return client.IgnoreNotFound(r.Delete(ctx, &reg, client.Preconditions{UID: &uid, ResourceVersion: &rv}))
	}
	delete(reg.Data, b.Name)
	return r.Update(ctx, &reg)
}
