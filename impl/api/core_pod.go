package api

import (
	corev1 "k8s.io/api/core/v1"
)

// Pod is core/v1 Pod.
type Pod = corev1.Pod

// PodList is core/v1 PodList.
type PodList = corev1.PodList

// PodTemplateSpec is the pod a workload stamps out.
type PodTemplateSpec = corev1.PodTemplateSpec

// A pod's parts are k8s.io/api's own types; only the kinds themselves
// (which carry converge's ObjectMeta) are converge's.
type (
	PodSpec                  = corev1.PodSpec
	PodStatus                = corev1.PodStatus
	PodSecurityContext       = corev1.PodSecurityContext
	PodCondition             = corev1.PodCondition
	PodIP                    = corev1.PodIP
	HostIP                   = corev1.HostIP
	Container                = corev1.Container
	ContainerPort            = corev1.ContainerPort
	ContainerStatus          = corev1.ContainerStatus
	ContainerState           = corev1.ContainerState
	ContainerStateWaiting    = corev1.ContainerStateWaiting
	ContainerStateRunning    = corev1.ContainerStateRunning
	ContainerStateTerminated = corev1.ContainerStateTerminated
	EnvVar                   = corev1.EnvVar
	ResourceRequirements     = corev1.ResourceRequirements
	Probe                    = corev1.Probe
	ExecAction               = corev1.ExecAction
	HTTPHeader               = corev1.HTTPHeader
	HTTPGetAction            = corev1.HTTPGetAction
	TCPSocketAction          = corev1.TCPSocketAction
	Toleration               = corev1.Toleration
	RestartPolicy            = corev1.RestartPolicy
	DNSPolicy                = corev1.DNSPolicy
	PullPolicy               = corev1.PullPolicy
	Protocol                 = corev1.Protocol
	TolerationOperator       = corev1.TolerationOperator
	PodPhase                 = corev1.PodPhase
)

const (
	RestartPolicyAlways    = corev1.RestartPolicyAlways
	RestartPolicyOnFailure = corev1.RestartPolicyOnFailure
	RestartPolicyNever     = corev1.RestartPolicyNever

	DNSClusterFirstWithHostNet = corev1.DNSClusterFirstWithHostNet
	DNSClusterFirst            = corev1.DNSClusterFirst
	DNSDefault                 = corev1.DNSDefault
	DNSNone                    = corev1.DNSNone

	PullAlways       = corev1.PullAlways
	PullIfNotPresent = corev1.PullIfNotPresent
	PullNever        = corev1.PullNever

	ProtocolTCP  = corev1.ProtocolTCP
	ProtocolUDP  = corev1.ProtocolUDP
	ProtocolSCTP = corev1.ProtocolSCTP

	TolerationOpExists = corev1.TolerationOpExists
	TolerationOpEqual  = corev1.TolerationOpEqual

	PodPending   = corev1.PodPending
	PodRunning   = corev1.PodRunning
	PodSucceeded = corev1.PodSucceeded
	PodFailed    = corev1.PodFailed
	PodUnknown   = corev1.PodUnknown
)

// DefaultSchedulerName is the scheduler a pod gets when it names none.
const DefaultSchedulerName = corev1.DefaultSchedulerName

// Pod condition types.
const (
	PodScheduled    = "PodScheduled"
	PodInitialized  = "Initialized"
	ContainersReady = "ContainersReady"
	PodReady        = "Ready"
)

// PodReasonSchedulingGated is the PodScheduled condition's reason while a
// pod has scheduling gates.
const PodReasonSchedulingGated = corev1.PodReasonSchedulingGated
