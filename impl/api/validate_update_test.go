package api

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

func TestValidateUpdate(t *testing.T) {
	old := validDeployment()
	old.Namespace, old.UID, old.Generation = "default", "uid-1", 2

	upd := DeepCopy(old)
	upd.Spec.Replicas = int32p(5)
	upd.Spec.Template.Spec.Containers[0].Image = "nginx:1.28"
	assert.NoError(t, ValidateUpdate(old, upd), "scaling and a new image are allowed")

	upd.UID = ""
	assert.NoError(t, ValidateUpdate(old, upd), "an omitted uid keeps the stored one")

	for _, tc := range []struct {
		name  string
		mut   func(*Deployment)
		field string
	}{
		{"selector", func(d *Deployment) {
			d.Spec.Selector = &LabelSelector{MatchLabels: map[string]string{"app": "myapp", "v": "2"}}
			d.Spec.Template.Labels["v"] = "2"
		}, "spec.selector"},
		{"name", func(d *Deployment) { d.Name = "other" }, "metadata.name"},
		{"namespace", func(d *Deployment) { d.Namespace = "prod" }, "metadata.namespace"},
		{"uid", func(d *Deployment) { d.UID = "uid-2" }, "metadata.uid"},
		{"generation decremented", func(d *Deployment) { d.Generation = 1 }, "metadata.generation"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			upd := DeepCopy(old)
			tc.mut(upd)
			err := ValidateUpdate(old, upd)
			require.True(t, IsInvalid(err), "%v", err)
			assert.Contains(t, err.Error(), tc.field+": ")
		})
	}

	t.Run("create rules still apply", func(t *testing.T) {
		upd := DeepCopy(old)
		upd.Spec.Replicas = int32p(-1)
		upd.Spec.Selector = &LabelSelector{MatchLabels: map[string]string{"app": "x"}}
		err := ValidateUpdate(old, upd)
		assert.Contains(t, err.Error(), "spec.replicas: Invalid value: -1")
		assert.Contains(t, err.Error(), "spec.selector: Invalid value")
	})

	t.Run("pod nodeName fixed once set", func(t *testing.T) {
		unbound := validPod()
		unbound.Namespace = "default"
		bound := DeepCopy(unbound)
		bound.Spec.NodeName = "node-1"
		assert.NoError(t, ValidateUpdate(unbound, bound))
		moved := DeepCopy(bound)
		moved.Spec.NodeName = "node-2"
		err := ValidateUpdate(bound, moved)
		assert.Contains(t, err.Error(), `spec.nodeName: Invalid value: "node-2": field is immutable`)
	})

	t.Run("replicaset selector", func(t *testing.T) {
		rs := validReplicaSet()
		rs.Namespace = "default"
		upd := DeepCopy(rs)
		upd.Spec.Selector = &LabelSelector{MatchExpressions: []LabelSelectorRequirement{{Key: "app", Operator: LabelSelectorOpExists}}}
		assert.Contains(t, ValidateUpdate(rs, upd).Error(), "spec.selector: Invalid value")
	})

	t.Run("no finalizers while deleting", func(t *testing.T) {
		deleting := DeepCopy(old)
		ts := Unix(100)
		deleting.DeletionTimestamp = &ts
		upd := DeepCopy(deleting)
		upd.Finalizers = []string{"example.com/hold"}
		assert.Contains(t, ValidateUpdate(deleting, upd).Error(), "metadata.finalizers: Forbidden: no new finalizers")
	})

	t.Run("service clusterIP and node podCIDR", func(t *testing.T) {
		s := validService()
		s.Namespace, s.Spec.ClusterIP = "default", "10.96.0.10"
		upd := DeepCopy(s)
		upd.Spec.ClusterIP = "10.96.0.11"
		assert.Contains(t, ValidateUpdate(s, upd).Error(), "spec.clusterIP")
		n := validNode()
		un := DeepCopy(n)
		un.Spec.PodCIDR = "10.244.2.0/24"
		assert.Contains(t, ValidateUpdate(n, un).Error(), "spec.podCIDR: Forbidden")
	})
}

// A status update checks the metadata update and the status; the spec is
// the stored one's, checked when it was written.
func TestValidateStatusUpdate(t *testing.T) {
	pod := validPod()
	pod.Namespace = "default"
	running := DeepCopy(pod)
	running.Status.Phase = PodRunning
	require.NoError(t, ValidateStatusUpdate(pod, running))

	stored := DeepCopy(pod)
	stored.Spec.Containers[0].Image = "" // stored before a rule it breaks
	fromBad := DeepCopy(stored)
	fromBad.Status.Phase = PodRunning
	require.Error(t, ValidateUpdate(stored, fromBad))
	assert.NoError(t, ValidateStatusUpdate(stored, fromBad), "the spec is not the status update's")

	renamed := DeepCopy(running)
	renamed.Name = "other"
	assert.Contains(t, ValidateStatusUpdate(pod, renamed).Error(), "metadata.name: ")

	node := &Node{TypeMeta: TypeMeta{Kind: "Node", APIVersion: "v1"}, ObjectMeta: ObjectMeta{Name: "node-1"}}
	bad := DeepCopy(node)
	bad.Status.Capacity = ResourceList{"cpu": resource.MustParse("-0.5")}
	err := ValidateStatusUpdate(node, bad)
	require.True(t, IsInvalid(err), "%v", err)
	assert.Contains(t, err.Error(), `status.capacity[cpu]: Invalid value: "-500m": must be greater than or equal to 0`)

	assert.True(t, IsBadRequest(ValidateStatusUpdate(pod, node)))
}

// TestSchedulingGates: gate names are qualified names, each once; a pod
// cannot be made bound and gated; an update removes gates, never adds one.
func TestSchedulingGates(t *testing.T) {
	gated := validPod()
	gated.Namespace, gated.UID = "default", "uid-1"
	gated.Spec.SchedulingGates = []corev1.PodSchedulingGate{{Name: "example.com/quota"}, {Name: "b"}}
	require.NoError(t, Validate(gated))

	bad := DeepCopy(gated)
	bad.Spec.SchedulingGates = append(bad.Spec.SchedulingGates, corev1.PodSchedulingGate{Name: "b"}, corev1.PodSchedulingGate{Name: "-no-"})
	err := Validate(bad)
	require.True(t, IsInvalid(err), "%v", err)
	assert.Contains(t, err.Error(), `spec.schedulingGates[2]: Duplicate value: "b"`)
	assert.Contains(t, err.Error(), `spec.schedulingGates[3]: Invalid value: "-no-"`)

	bound := DeepCopy(gated)
	bound.Spec.NodeName = "node-1"
	err = Validate(bound)
	require.True(t, IsInvalid(err), "%v", err)
	assert.Contains(t, err.Error(), "spec.nodeName: Forbidden: cannot be set until all schedulingGates have been cleared")

	fewer := DeepCopy(gated)
	fewer.Spec.SchedulingGates = fewer.Spec.SchedulingGates[1:]
	assert.NoError(t, ValidateUpdate(gated, fewer), "removing a gate")
	more := DeepCopy(fewer)
	more.Spec.SchedulingGates = append(more.Spec.SchedulingGates, corev1.PodSchedulingGate{Name: "example.com/late"})
	err = ValidateUpdate(fewer, more)
	require.True(t, IsInvalid(err), "%v", err)
	assert.Contains(t, err.Error(), "spec.schedulingGates: Forbidden: only deletion is allowed, but found new scheduling gate 'example.com/late'")
}
