package broker

import (
	"context"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	mqv1 "github.com/converge-dev/converge/examples/foreign/broker/api/v1"
)

// Condition types.
const (
	Available = "Available"
	Paused    = "Paused"
)

// updateStatus reports what the Deployment shows, and writes only if that
// changed; invalid is the apiserver's refusal of a child, if any.
func (r *Reconciler) updateStatus(ctx context.Context, b *mqv1.Broker, invalid string) error {
	var dep appsv1.Deployment
	err := r.Get(ctx, client.ObjectKey{Namespace: b.Namespace, Name: b.Name}, &dep)
	if err != nil && !apierrors.IsNotFound(err) {
		return err
	}
	found := err == nil && isControlledBy(&dep, b)
	before := b.Status.DeepCopy()
	st := &b.Status
	st.Replicas, st.ReadyReplicas = 0, 0
	if found {
		st.Replicas, st.ReadyReplicas = dep.Status.Replicas, dep.Status.ReadyReplicas
	}
	// BugStatusFromSpec: status copies the spec (ISSTA'24 incorrect status).
	if BugStatusFromSpec {
		st.Replicas, st.ReadyReplicas = b.Spec.Replicas, b.Spec.Replicas
	}
	if !BugGeneratedConfigName {
		st.ConfigMapName = b.Name + "-config"
	}
	st.ObservedGeneration = b.Generation
	avail := metav1.Condition{Type: Available, Status: metav1.ConditionFalse, Reason: "Progressing",
		Message: "the broker's pods are not all updated and ready", ObservedGeneration: b.Generation}
	switch {
	case invalid != "":
		avail.Reason, avail.Message = "InvalidSpec", invalid
	case found && available(&dep, b.Spec.Replicas):
		avail.Status, avail.Reason, avail.Message = metav1.ConditionTrue, "Ready", "all pods are updated and ready"
	}
	meta.SetStatusCondition(&st.Conditions, avail)
	pause := metav1.Condition{Type: Paused, Status: metav1.ConditionFalse, Reason: "Reconciling",
		Message: "the operator reconciles the broker", ObservedGeneration: b.Generation}
	if b.Spec.Paused {
		pause.Status, pause.Reason, pause.Message = metav1.ConditionTrue, "Paused", "spec.paused is set"
	}
	meta.SetStatusCondition(&st.Conditions, pause)
	if equality.Semantic.DeepEqual(before, st) {
		return nil
	}
	return r.Status().Update(ctx, b)
}

// available: the Deployment has seen its latest spec, wants the Broker's
// replicas, and every replica runs that spec and is ready. A paused
// Broker's Deployment keeps its own replica count: matching the status
// against the Broker's alone would call a Deployment whose pods are not
// made yet available (a paused Broker scaled to 0).
func available(dep *appsv1.Deployment, want int32) bool {
	s := dep.Status
	// BugAvailableIgnoresRollout: ready pods are enough (kstatus needs
	// observedGeneration; ISSTA'24 incorrect status).
	if BugAvailableIgnoresRollout {
		return s.ReadyReplicas >= want
	}
	return s.ObservedGeneration >= dep.Generation && dep.Spec.Replicas != nil && *dep.Spec.Replicas == want &&
		s.UpdatedReplicas == want && s.Replicas == want && s.ReadyReplicas == want && s.AvailableReplicas == want
}
