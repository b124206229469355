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
	if len(j.Labels) == 0 && len(s.Template.Labels) > 0 {
		j.Labels = make(map[string]string, len(s.Template.Labels))
		for k, v := range s.Template.Labels {
			j.Labels[k] = v
		}
	}
	defaultKubePodSpec(&s.Template.Spec)
}

// defaultKubePodSpec is defaultPodSpec for a k8s.io/api pod spec, with
// the volume defaults a template's volumes get.
func defaultKubePodSpec(s *corev1.PodSpec) {
	if s.RestartPolicy == "" {
		s.RestartPolicy = corev1.RestartPolicyAlways
	}
	if s.TerminationGracePeriodSeconds == nil {
		s.TerminationGracePeriodSeconds = ptr[int64](DefaultTerminationGracePeriodSeconds)
	}
	if s.DNSPolicy == "" {
		s.DNSPolicy = corev1.DNSClusterFirst
	}
	if s.SchedulerName == "" {
		s.SchedulerName = DefaultSchedulerName
	}
	if s.SecurityContext == nil {
		s.SecurityContext = &corev1.PodSecurityContext{}
	}
	s.ServiceAccountName, s.DeprecatedServiceAccount = serviceAccountAlias(s.ServiceAccountName, s.DeprecatedServiceAccount)
	for i := range s.InitContainers {
		defaultKubeContainer(&s.InitContainers[i])
	}
	for i := range s.Containers {
		defaultKubeContainer(&s.Containers[i])
	}
	for i := range s.Volumes {
		defaultKubeVolume(&s.Volumes[i].VolumeSource)
	}
}

func defaultKubeContainer(c *corev1.Container) {
	if c.ImagePullPolicy == "" {
		c.ImagePullPolicy = corev1.PullPolicy(DefaultPullPolicy(c.Image))
	}
	if c.TerminationMessagePath == "" {
		c.TerminationMessagePath = DefaultTerminationMessagePath
	}
	if c.TerminationMessagePolicy == "" {
		c.TerminationMessagePolicy = corev1.TerminationMessageReadFile
	}
	for i := range c.Ports {
		if c.Ports[i].Protocol == "" {
			c.Ports[i].Protocol = corev1.ProtocolTCP
		}
	}
	for _, e := range c.Env {
		if e.ValueFrom != nil && e.ValueFrom.FieldRef != nil && e.ValueFrom.FieldRef.APIVersion == "" {
			e.ValueFrom.FieldRef.APIVersion = "v1"
		}
	}
	for _, p := range []*corev1.Probe{c.LivenessProbe, c.ReadinessProbe, c.StartupProbe} {
		defaultKubeProbe(p)
	}
}

func defaultKubeProbe(p *corev1.Probe) {
	if p == nil {
		return
	}
	if p.TimeoutSeconds == 0 {
		p.TimeoutSeconds = 1
	}
	if p.PeriodSeconds == 0 {
		p.PeriodSeconds = 10
	}
	if p.SuccessThreshold == 0 {
		p.SuccessThreshold = 1
	}
	if p.FailureThreshold == 0 {
		p.FailureThreshold = 3
	}
	if h := p.HTTPGet; h != nil {
		if h.Path == "" {
			h.Path = "/"
		}
		if h.Scheme == "" {
			h.Scheme = corev1.URISchemeHTTP
		}
	}
	defaultGRPC(p.GRPC)
}

// defaultGRPC: a gRPC probe's service is "" (the server's overall health)
// when unset, as upstream's declarative default (+default="") fills it.
func defaultGRPC(g *corev1.GRPCAction) {
	if g != nil && g.Service == nil {
		g.Service = ptr("")
	}
}

// defaultKubeVolume: a volume with no source is an emptyDir; mounted
// files get mode 0644; a hostPath's type is "" (unset).
func defaultKubeVolume(v *corev1.VolumeSource) {
	const mode = int32(0o644)
	switch {
	case v.HostPath != nil:
		if v.HostPath.Type == nil {
			v.HostPath.Type = ptr(corev1.HostPathUnset)
		}
	case v.ConfigMap != nil:
		if v.ConfigMap.DefaultMode == nil {
			v.ConfigMap.DefaultMode = ptr(mode)
		}
	case v.Secret != nil:
		if v.Secret.DefaultMode == nil {
			v.Secret.DefaultMode = ptr(mode)
		}
	case v.DownwardAPI != nil:
		if v.DownwardAPI.DefaultMode == nil {
			v.DownwardAPI.DefaultMode = ptr(mode)
		}
	case v.Projected != nil:
		if v.Projected.DefaultMode == nil {
			v.Projected.DefaultMode = ptr(mode)
		}
	case *v == (corev1.VolumeSource{}):
		v.EmptyDir = &corev1.EmptyDirVolumeSource{}
	}
}
