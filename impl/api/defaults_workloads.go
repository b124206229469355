package api

import (
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Defaults of the stored workload kinds, as Kubernetes' SetDefaults_*
// functions for core/v1, apps/v1 and batch/v1 fill them (those live in
// k8s.io/kubernetes, which converge does not import): what a client reads
// back from a real cluster after creating the same manifest.

// defaultWorkload fills the defaults of a stored workload kind; false if
// obj is none.
func defaultWorkload(obj Object) bool {
	switch o := obj.(type) {
	case *PersistentVolumeClaim:
		defaultClaimSpec(&o.Spec)
		if o.Status.Phase == "" {
			o.Status.Phase = corev1.ClaimPending
		}
	case *StatefulSet:
		defaultStatefulSetSpec(&o.Spec)
	case *DaemonSet:
		s := &o.Spec
		if s.UpdateStrategy.Type == "" {
			s.UpdateStrategy.Type = appsv1.RollingUpdateDaemonSetStrategyType
		}
		if s.UpdateStrategy.Type == appsv1.RollingUpdateDaemonSetStrategyType {
			if s.UpdateStrategy.RollingUpdate == nil {
				s.UpdateStrategy.RollingUpdate = &appsv1.RollingUpdateDaemonSet{}
			}
			if s.UpdateStrategy.RollingUpdate.MaxUnavailable == nil {
				s.UpdateStrategy.RollingUpdate.MaxUnavailable = ptr(intstr.FromInt32(1))
			}
			if s.UpdateStrategy.RollingUpdate.MaxSurge == nil {
				s.UpdateStrategy.RollingUpdate.MaxSurge = ptr(intstr.FromInt32(0))
			}
		}
		if s.RevisionHistoryLimit == nil {
			s.RevisionHistoryLimit = ptr[int32](DefaultRevisionHistoryLimit)
		}
		defaultKubePodSpec(&s.Template.Spec)
	case *Job:
		defaultJob(o)
	default:
		return false
	}
	return true
}

func defaultClaimSpec(s *corev1.PersistentVolumeClaimSpec) {
	if s.VolumeMode == nil {
		s.VolumeMode = ptr(corev1.PersistentVolumeFilesystem)
	}
}

func defaultStatefulSetSpec(s *appsv1.StatefulSetSpec) {
	if s.PodManagementPolicy == "" {
		s.PodManagementPolicy = appsv1.OrderedReadyPodManagement
	}
	if s.UpdateStrategy.Type == "" {
		s.UpdateStrategy.Type = appsv1.RollingUpdateStatefulSetStrategyType
	}
	if s.UpdateStrategy.Type == appsv1.RollingUpdateStatefulSetStrategyType {
		if s.UpdateStrategy.RollingUpdate == nil {
			s.UpdateStrategy.RollingUpdate = &appsv1.RollingUpdateStatefulSetStrategy{}
		}
		if s.UpdateStrategy.RollingUpdate.Partition == nil {
			s.UpdateStrategy.RollingUpdate.Partition = ptr[int32](0)
		}
	}
	if s.PersistentVolumeClaimRetentionPolicy == nil {
		s.PersistentVolumeClaimRetentionPolicy = &appsv1.StatefulSetPersistentVolumeClaimRetentionPolicy{}
	}
	if p := s.PersistentVolumeClaimRetentionPolicy; p.WhenDeleted == "" {
		p.WhenDeleted = appsv1.RetainPersistentVolumeClaimRetentionPolicyType
	}
	if p := s.PersistentVolumeClaimRetentionPolicy; p.WhenScaled == "" {
		p.WhenScaled = appsv1.RetainPersistentVolumeClaimRetentionPolicyType
	}
	if s.Replicas == nil {
		s.Replicas = ptr[int32](1)
	}
	if s.RevisionHistoryLimit == nil {
		s.RevisionHistoryLimit = ptr[int32](DefaultRevisionHistoryLimit)
	}
	// The claim templates are claims: defaulted as one, and served with
	// their apiVersion and kind, as apps/v1 serves them.
	for i := range s.VolumeClaimTemplates {
		c := &s.VolumeClaimTemplates[i]
		c.APIVersion, c.Kind = "v1", "PersistentVolumeClaim"
		defaultClaimSpec(&c.Spec)
		if c.Status.Phase == "" {
			c.Status.Phase = corev1.ClaimPending
		}
	}
	defaultKubePodSpec(&s.Template.Spec)
}

func defaultJob(j *Job) {
	s := &j.Spec
	if s.Completions == nil && s.Parallelism == nil {
		s.Completions = ptr[int32](1)
	}
	if s.Parallelism == nil {
		s.Parallelism = ptr[int32](1)
	}
	if s.BackoffLimit == nil {
		if s.BackoffLimitPerIndex != nil {
			s.BackoffLimit = ptr[int32](1<<31 - 1)
		} else {
			s.BackoffLimit = ptr[int32](6)
		}
	}
	if s.CompletionMode == nil {
		s.CompletionMode = ptr(batchv1.NonIndexedCompletion)
	}
	if s.Suspend == nil {
		s.Suspend = ptr(false)
	}
	if s.ManualSelector == nil {
		s.ManualSelector = ptr(false)
	}
	if s.PodReplacementPolicy == nil {
		if s.PodFailurePolicy != nil {
			s.PodReplacementPolicy = ptr(batchv1.Failed)
		} else {
			s.PodReplacementPolicy = ptr(batchv1.TerminatingOrFailed)
		}
	}
	// SetDefaults_Job: a pod failure policy's condition pattern matches
	// a condition that is True unless it says otherwise.
	if s.PodFailurePolicy != nil {
		for i := range s.PodFailurePolicy.Rules {
			for k, c := range s.PodFailurePolicy.Rules[i].OnPodConditions {
				if c.Status == "" {
					s.PodFailurePolicy.Rules[i].OnPodConditions[k].Status = corev1.ConditionTrue
				}
			}
		}
	}
	if len(j.Labels) == 0 && len(s.Template.Labels) > 0 {
		j.Labels = make(map[string]string, len(s.Template.Labels))
		for k, v := range s.Template.Labels {
			j.Labels[k] = v
		}
	}
	defaultKubePodSpec(&s.Template.Spec)
}
