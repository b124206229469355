package api

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// Default values Kubernetes fills in.
const (
	DefaultNamespace                     = "default"
	DefaultTerminationGracePeriodSeconds = 30
	DefaultRevisionHistoryLimit          = 10
	DefaultProgressDeadlineSeconds       = 600
	DefaultMaxSurge                      = "25%"
	DefaultMaxUnavailable                = "25%"
	DefaultTerminationMessagePath        = "/dev/termination-log"
)

// Default fills in every field Kubernetes defaults, in place, and is
// idempotent. Namespaced kinds with no namespace get "default". Call it
// before Validate, as the apiserver does.
func Default(obj Object) {
	if isNilObject(obj) {
		return
	}
	if km, ok := metaOf(obj); ok && km.namespaced && Meta(obj).Namespace == "" {
		Meta(obj).Namespace = DefaultNamespace
	}
	switch o := obj.(type) {
	case *Deployment:
		defaultDeploymentSpec(&o.Spec)
	case *ReplicaSet:
		if o.Spec.Replicas == nil {
			o.Spec.Replicas = ptr[int32](1)
		}
		defaultPodSpec(&o.Spec.Template.Spec)
	case *Pod:
		defaultPodSpec(&o.Spec)
	case *Service:
		defaultServiceSpec(&o.Spec)
	case *Endpoints:
		for i := range o.Subsets {
			for j := range o.Subsets[i].Ports {
				if o.Subsets[i].Ports[j].Protocol == "" {
					o.Subsets[i].Ports[j].Protocol = ProtocolTCP
				}
			}
		}
	case *Node:
		// A node that reports capacity but not allocatable can use it all.
		if o.Status.Allocatable == nil && o.Status.Capacity != nil {
			o.Status.Allocatable = o.Status.Capacity.DeepCopy()
		}
	case *Namespace:
		if o.Status.Phase == "" {
			o.Status.Phase = NamespaceActive
		}
	case *CustomObject:
		defaultCustom(o)
	case *CustomResourceDefinition:
		defaultCRD(o)
	default:
		if !defaultWorkload(obj) && !defaultOwned(obj) && !defaultEndpointSlice(obj) {
			defaultStored(obj)
		}
	}
}

func ptr[T any](v T) *T { return &v }

func defaultDeploymentSpec(s *DeploymentSpec) {
	if s.Replicas == nil {
		s.Replicas = ptr[int32](1)
	}
	if s.Strategy.Type == "" {
		s.Strategy.Type = RollingUpdateDeploymentStrategyType
	}
	if s.Strategy.Type == RollingUpdateDeploymentStrategyType {
		if s.Strategy.RollingUpdate == nil {
			s.Strategy.RollingUpdate = &RollingUpdateDeployment{}
		}
		if s.Strategy.RollingUpdate.MaxUnavailable == nil {
			s.Strategy.RollingUpdate.MaxUnavailable = IntOrStringPtr(FromString(DefaultMaxUnavailable))
		}
		if s.Strategy.RollingUpdate.MaxSurge == nil {
			s.Strategy.RollingUpdate.MaxSurge = IntOrStringPtr(FromString(DefaultMaxSurge))
		}
	}
	if s.RevisionHistoryLimit == nil {
		s.RevisionHistoryLimit = ptr[int32](DefaultRevisionHistoryLimit)
	}
	if s.ProgressDeadlineSeconds == nil {
		s.ProgressDeadlineSeconds = ptr[int32](DefaultProgressDeadlineSeconds)
	}
	defaultPodSpec(&s.Template.Spec)
}

// defaultPodSpec: PodSpec is k8s.io/api's, so its defaults are the
// workload kinds' (defaults_pod.go).
func defaultPodSpec(s *PodSpec) { defaultKubePodSpec(s) }

// serviceAccountAlias: a pod spec's serviceAccount is the deprecated alias
// of serviceAccountName. Upstream's conversion takes it when
// serviceAccountName is unset (the new field wins when both are) and
// serves the two equal.
func serviceAccountAlias(name, deprecated string) (string, string) {
	if name == "" {
		name = deprecated
	}
	return name, name
}

// DefaultPullPolicy is Always for an image tagged :latest or not tagged at
// all, and IfNotPresent otherwise (including images pinned by digest).
func DefaultPullPolicy(image string) PullPolicy {
	if strings.Contains(image, "@") {
		return PullIfNotPresent
	}
	last := image[strings.LastIndex(image, "/")+1:]
	i := strings.LastIndex(last, ":")
	if i < 0 || last[i+1:] == "latest" {
		return PullAlways
	}
	return PullIfNotPresent
}

func defaultServiceSpec(s *ServiceSpec) {
	if s.Type == "" {
		s.Type = ServiceTypeClusterIP
	}
	if s.SessionAffinity == "" {
		s.SessionAffinity = "None"
	}
	// Upstream's service strategy fills clusterIPs from clusterIP (a
	// headless Service's is ["None"]), so both spellings read back alike.
	if s.ClusterIP != "" && len(s.ClusterIPs) == 0 {
		s.ClusterIPs = []string{s.ClusterIP}
	}
	// Upstream's SetDefaults_Service: a client-IP affinity lasts three
	// hours; an externally reachable service routes cluster-wide; every
	// service but an ExternalName routes in-cluster traffic cluster-wide;
	// a load balancer allocates node ports.
	if s.SessionAffinity == "ClientIP" && (s.SessionAffinityConfig == nil || s.SessionAffinityConfig.ClientIP == nil ||
		s.SessionAffinityConfig.ClientIP.TimeoutSeconds == nil) {
		s.SessionAffinityConfig = &corev1.SessionAffinityConfig{ClientIP: &corev1.ClientIPConfig{
			TimeoutSeconds: ptr(corev1.DefaultClientIPServiceAffinitySeconds)}}
	}
	if externallyAccessible(s) && s.ExternalTrafficPolicy == "" {
		s.ExternalTrafficPolicy = corev1.ServiceExternalTrafficPolicyCluster
	}
	if s.Type != ServiceTypeExternalName && s.InternalTrafficPolicy == nil {
		s.InternalTrafficPolicy = ptr(corev1.ServiceInternalTrafficPolicyCluster)
	}
	if s.Type == ServiceTypeLoadBalancer && s.AllocateLoadBalancerNodePorts == nil {
		s.AllocateLoadBalancerNodePorts = ptr(true)
	}
	for i := range s.Ports {
		sp := &s.Ports[i]
		if sp.Protocol == "" {
			sp.Protocol = ProtocolTCP
		}
		if sp.TargetPort == FromInt32(0) || sp.TargetPort == FromString("") {
			sp.TargetPort = FromInt32(sp.Port)
		}
	}
}
