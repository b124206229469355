package cluster

import (
	"github.com/converge-dev/converge/impl/api"
	corev1 "k8s.io/api/core/v1"
)

// kubeletStatus adds to a pod status a kubelet writes what a real kubelet
// reports beside the model's fields, so that kubectl describe reads as it
// does upstream: the pod's start time, when its container started, the
// Initialized and PodReadyToStartContainers conditions, and the times of
// conditions that changed. Times are the driver's clock (logical, and so
// deterministic, in the stepped driver); the model sees none of this.
func kubeletStatus(p *api.Pod, now api.Time) {
	s := &p.Status
	if s.StartTime == nil {
		s.StartTime = &now
	}
	for _, typ := range []corev1.PodConditionType{"PodReadyToStartContainers", "Initialized"} {
		if !hasPodCondition(s, typ) {
			s.Conditions = append(s.Conditions, api.PodCondition{Type: typ, Status: api.ConditionTrue})
		}
	}
	for i := range s.Conditions {
		if s.Conditions[i].LastTransitionTime.IsZero() {
			s.Conditions[i].LastTransitionTime = now
		}
	}
	for i := range s.ContainerStatuses {
		if r := s.ContainerStatuses[i].State.Running; r != nil && r.StartedAt.IsZero() {
			r.StartedAt = now
		}
	}
}

func hasPodCondition(s *api.PodStatus, typ corev1.PodConditionType) bool {
	for _, c := range s.Conditions {
		if c.Type == typ {
			return true
		}
	}
	return false
}
