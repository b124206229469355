package api

import (
	corev1 "k8s.io/api/core/v1"
)

// Node is core/v1 Node (cluster-scoped).
type Node = corev1.Node

// NodeList is core/v1 NodeList.
type NodeList = corev1.NodeList

// Service is core/v1 Service.
type Service = corev1.Service

// ServiceList is core/v1 ServiceList.
type ServiceList = corev1.ServiceList

// Endpoints is core/v1 Endpoints: the addresses behind a service.
type Endpoints = corev1.Endpoints

// EndpointsList is core/v1 EndpointsList.
type EndpointsList = corev1.EndpointsList

// Namespace is core/v1 Namespace (cluster-scoped).
type Namespace = corev1.Namespace

// NamespaceList is core/v1 NamespaceList.
type NamespaceList = corev1.NamespaceList

// Binding is core/v1 Binding: the scheduler posts one to pods/binding to
// set a pod's node.
type Binding = corev1.Binding

// The parts of nodes, services, endpoints and namespaces are k8s.io/api's
// own types.
type (
	NodeSpec            = corev1.NodeSpec
	NodeStatus          = corev1.NodeStatus
	NodeCondition       = corev1.NodeCondition
	NodeAddress         = corev1.NodeAddress
	NodeDaemonEndpoints = corev1.NodeDaemonEndpoints
	DaemonEndpoint      = corev1.DaemonEndpoint
	NodeSystemInfo      = corev1.NodeSystemInfo
	ContainerImage      = corev1.ContainerImage
	Taint               = corev1.Taint
	TaintEffect         = corev1.TaintEffect
	ServiceSpec         = corev1.ServiceSpec
	ServiceStatus       = corev1.ServiceStatus
	ServicePort         = corev1.ServicePort
	ServiceType         = corev1.ServiceType
	LoadBalancerStatus  = corev1.LoadBalancerStatus
	LoadBalancerIngress = corev1.LoadBalancerIngress
	EndpointSubset      = corev1.EndpointSubset
	EndpointAddress     = corev1.EndpointAddress
	EndpointPort        = corev1.EndpointPort
	NamespaceSpec       = corev1.NamespaceSpec
	NamespaceStatus     = corev1.NamespaceStatus
)

const (
	TaintEffectNoSchedule       = corev1.TaintEffectNoSchedule
	TaintEffectPreferNoSchedule = corev1.TaintEffectPreferNoSchedule
	TaintEffectNoExecute        = corev1.TaintEffectNoExecute

	ServiceTypeClusterIP    = corev1.ServiceTypeClusterIP
	ServiceTypeNodePort     = corev1.ServiceTypeNodePort
	ServiceTypeLoadBalancer = corev1.ServiceTypeLoadBalancer
	ServiceTypeExternalName = corev1.ServiceTypeExternalName

	// ClusterIPNone marks a headless service.
	ClusterIPNone = corev1.ClusterIPNone
)

// Node condition types.
const (
	NodeReady              = "Ready"
	NodeMemoryPressure     = "MemoryPressure"
	NodeDiskPressure       = "DiskPressure"
	NodePIDPressure        = "PIDPressure"
	NodeNetworkUnavailable = "NetworkUnavailable"
)

// Namespace phases.
const (
	NamespaceActive      = "Active"
	NamespaceTerminating = "Terminating"
)
