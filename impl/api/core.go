package api

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Node is core/v1 Node (cluster-scoped).
type Node struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty"`
	Spec       NodeSpec   `json:"spec,omitempty"`
	Status     NodeStatus `json:"status,omitempty"`
}

// NodeList is core/v1 NodeList.
type NodeList struct {
	TypeMeta `json:",inline"`
	ListMeta `json:"metadata,omitempty"`
	Items    []Node `json:"items"`
}

// NodeSpec is the desired state of a node.
type NodeSpec struct {
	PodCIDR       string   `json:"podCIDR,omitempty"`
	PodCIDRs      []string `json:"podCIDRs,omitempty"`
	ProviderID    string   `json:"providerID,omitempty"`
	Unschedulable bool     `json:"unschedulable,omitempty"`
	Taints        []Taint  `json:"taints,omitempty"`

	// What converge's kubelets do not act on, stored as sent.
	ConfigSource        *corev1.NodeConfigSource        `json:"configSource,omitempty"`
	DoNotUseExternalID  string                          `json:"externalID,omitempty"`
	PodPreemptionPolicy *corev1.NodePodPreemptionPolicy `json:"podPreemptionPolicy,omitempty"`
}

// TaintEffect is what a taint does to pods that do not tolerate it.
type TaintEffect string

const (
	TaintEffectNoSchedule       TaintEffect = "NoSchedule"
	TaintEffectPreferNoSchedule TaintEffect = "PreferNoSchedule"
	TaintEffectNoExecute        TaintEffect = "NoExecute"
)

// Taint repels pods from a node.
type Taint struct {
	Key       string      `json:"key"`
	Value     string      `json:"value,omitempty"`
	Effect    TaintEffect `json:"effect"`
	TimeAdded *Time       `json:"timeAdded,omitempty"`
}

// NodeStatus is the observed state of a node, written by its kubelet.
type NodeStatus struct {
	Capacity        ResourceList        `json:"capacity,omitempty"`
	Allocatable     ResourceList        `json:"allocatable,omitempty"`
	Phase           string              `json:"phase,omitempty"`
	Conditions      []NodeCondition     `json:"conditions,omitempty"`
	Addresses       []NodeAddress       `json:"addresses,omitempty"`
	DaemonEndpoints NodeDaemonEndpoints `json:"daemonEndpoints,omitempty"`
	NodeInfo        NodeSystemInfo      `json:"nodeInfo,omitempty"`
	Images          []ContainerImage    `json:"images,omitempty"`

	// What converge's kubelets do not write, stored as sent.
	VolumesInUse     []corev1.UniqueVolumeName   `json:"volumesInUse,omitempty"`
	VolumesAttached  []corev1.AttachedVolume     `json:"volumesAttached,omitempty"`
	Config           *corev1.NodeConfigStatus    `json:"config,omitempty"`
	RuntimeHandlers  []corev1.NodeRuntimeHandler `json:"runtimeHandlers,omitempty"`
	Features         *corev1.NodeFeatures        `json:"features,omitempty"`
	DeclaredFeatures []string                    `json:"declaredFeatures,omitempty"`
}

// Node condition types.
const (
	NodeReady              = "Ready"
	NodeMemoryPressure     = "MemoryPressure"
	NodeDiskPressure       = "DiskPressure"
	NodePIDPressure        = "PIDPressure"
	NodeNetworkUnavailable = "NetworkUnavailable"
)

// NodeCondition is one condition of a node; the node lifecycle controller
// watches lastHeartbeatTime of Ready.
type NodeCondition struct {
	Type               string          `json:"type"`
	Status             ConditionStatus `json:"status"`
	LastHeartbeatTime  Time            `json:"lastHeartbeatTime,omitempty"`
	LastTransitionTime Time            `json:"lastTransitionTime,omitempty"`
	Reason             string          `json:"reason,omitempty"`
	Message            string          `json:"message,omitempty"`
}

// NodeAddress is one address of a node ("InternalIP", "Hostname", ...).
type NodeAddress struct {
	Type    string `json:"type"`
	Address string `json:"address"`
}

// NodeDaemonEndpoints are the ports of a node's daemons.
type NodeDaemonEndpoints struct {
	KubeletEndpoint DaemonEndpoint `json:"kubeletEndpoint,omitempty"`
}

// DaemonEndpoint is one daemon's port.
type DaemonEndpoint struct {
	Port int32 `json:"Port"`
}

// NodeSystemInfo describes a node's software (a subset of Kubernetes').
type NodeSystemInfo struct {
	MachineID               string `json:"machineID"`
	SystemUUID              string `json:"systemUUID"`
	BootID                  string `json:"bootID"`
	KernelVersion           string `json:"kernelVersion"`
	OSImage                 string `json:"osImage"`
	ContainerRuntimeVersion string `json:"containerRuntimeVersion"`
	KubeletVersion          string `json:"kubeletVersion"`
	KubeProxyVersion        string `json:"kubeProxyVersion"`
	OperatingSystem         string `json:"operatingSystem"`
	Architecture            string `json:"architecture"`

	Swap                   *corev1.NodeSwapStatus `json:"swap,omitempty"`
	RunningInUserNamespace *bool                  `json:"runningInUserNamespace,omitempty"`
}

// ContainerImage is an image present on a node.
type ContainerImage struct {
	Names     []string `json:"names"`
	SizeBytes int64    `json:"sizeBytes,omitempty"`
}

// Service is core/v1 Service.
type Service struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty"`
	Spec       ServiceSpec   `json:"spec,omitempty"`
	Status     ServiceStatus `json:"status,omitempty"`
}

// ServiceList is core/v1 ServiceList.
type ServiceList struct {
	TypeMeta `json:",inline"`
	ListMeta `json:"metadata,omitempty"`
	Items    []Service `json:"items"`
}

// ServiceType says how a service is exposed.
type ServiceType string

const (
	ServiceTypeClusterIP    ServiceType = "ClusterIP"
	ServiceTypeNodePort     ServiceType = "NodePort"
	ServiceTypeLoadBalancer ServiceType = "LoadBalancer"
	ServiceTypeExternalName ServiceType = "ExternalName"
)

// ClusterIPNone marks a headless service.
const ClusterIPNone = "None"

// ServiceSpec is the desired state of a service.
type ServiceSpec struct {
	Ports           []ServicePort     `json:"ports,omitempty"`
	Selector        map[string]string `json:"selector,omitempty"`
	ClusterIP       string            `json:"clusterIP,omitempty"`
	ClusterIPs      []string          `json:"clusterIPs,omitempty"`
	Type            ServiceType       `json:"type,omitempty"`
	ExternalName    string            `json:"externalName,omitempty"`
	SessionAffinity string            `json:"sessionAffinity,omitempty"`

	// What the model does not act on is k8s.io/api's own, stored and
	// served back as sent (and defaulted as upstream).
	ExternalIPs                   []string                             `json:"externalIPs,omitempty"`
	LoadBalancerIP                string                               `json:"loadBalancerIP,omitempty"`
	LoadBalancerSourceRanges      []string                             `json:"loadBalancerSourceRanges,omitempty"`
	ExternalTrafficPolicy         corev1.ServiceExternalTrafficPolicy  `json:"externalTrafficPolicy,omitempty"`
	HealthCheckNodePort           int32                                `json:"healthCheckNodePort,omitempty"`
	PublishNotReadyAddresses      bool                                 `json:"publishNotReadyAddresses,omitempty"`
	SessionAffinityConfig         *corev1.SessionAffinityConfig        `json:"sessionAffinityConfig,omitempty"`
	IPFamilies                    []corev1.IPFamily                    `json:"ipFamilies,omitempty"`
	IPFamilyPolicy                *corev1.IPFamilyPolicy               `json:"ipFamilyPolicy,omitempty"`
	AllocateLoadBalancerNodePorts *bool                                `json:"allocateLoadBalancerNodePorts,omitempty"`
	LoadBalancerClass             *string                              `json:"loadBalancerClass,omitempty"`
	InternalTrafficPolicy         *corev1.ServiceInternalTrafficPolicy `json:"internalTrafficPolicy,omitempty"`
	TrafficDistribution           *string                              `json:"trafficDistribution,omitempty"`
}

// ServicePort maps a service port to a pod port.
type ServicePort struct {
	Name        string      `json:"name,omitempty"`
	Protocol    Protocol    `json:"protocol,omitempty"`
	AppProtocol *string     `json:"appProtocol,omitempty"`
	Port        int32       `json:"port"`
	TargetPort  IntOrString `json:"targetPort,omitempty"`
	NodePort    int32       `json:"nodePort,omitempty"`
}

// ServiceStatus is the observed state of a service.
type ServiceStatus struct {
	LoadBalancer LoadBalancerStatus `json:"loadBalancer,omitempty"`
	Conditions   []metav1.Condition `json:"conditions,omitempty"`
}

// LoadBalancerStatus lists a load balancer's ingress points.
type LoadBalancerStatus struct {
	Ingress []LoadBalancerIngress `json:"ingress,omitempty"`
}

// LoadBalancerIngress is one ingress point.
type LoadBalancerIngress struct {
	IP       string                     `json:"ip,omitempty"`
	Hostname string                     `json:"hostname,omitempty"`
	IPMode   *corev1.LoadBalancerIPMode `json:"ipMode,omitempty"`
	Ports    []corev1.PortStatus        `json:"ports,omitempty"`
}

// Endpoints is core/v1 Endpoints: the addresses behind a service.
type Endpoints struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty"`
	Subsets    []EndpointSubset `json:"subsets,omitempty"`
}

// EndpointsList is core/v1 EndpointsList.
type EndpointsList struct {
	TypeMeta `json:",inline"`
	ListMeta `json:"metadata,omitempty"`
	Items    []Endpoints `json:"items"`
}

// EndpointSubset is a set of addresses sharing a set of ports.
type EndpointSubset struct {
	Addresses         []EndpointAddress `json:"addresses,omitempty"`
	NotReadyAddresses []EndpointAddress `json:"notReadyAddresses,omitempty"`
	Ports             []EndpointPort    `json:"ports,omitempty"`
}

// EndpointAddress is one backend address.
type EndpointAddress struct {
	IP        string           `json:"ip"`
	Hostname  string           `json:"hostname,omitempty"`
	NodeName  *string          `json:"nodeName,omitempty"`
	TargetRef *ObjectReference `json:"targetRef,omitempty"`
}

// EndpointPort is one backend port.
type EndpointPort struct {
	Name        string   `json:"name,omitempty"`
	Port        int32    `json:"port"`
	Protocol    Protocol `json:"protocol,omitempty"`
	AppProtocol *string  `json:"appProtocol,omitempty"`
}

// Namespace is core/v1 Namespace (cluster-scoped).
type Namespace struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty"`
	Spec       NamespaceSpec   `json:"spec,omitempty"`
	Status     NamespaceStatus `json:"status,omitempty"`
}

// NamespaceList is core/v1 NamespaceList.
type NamespaceList struct {
	TypeMeta `json:",inline"`
	ListMeta `json:"metadata,omitempty"`
	Items    []Namespace `json:"items"`
}

// NamespaceSpec holds the namespace's finalizers.
type NamespaceSpec struct {
	Finalizers []string `json:"finalizers,omitempty"`
}

// Namespace phases.
const (
	NamespaceActive      = "Active"
	NamespaceTerminating = "Terminating"
)

// NamespaceStatus is the observed state of a namespace.
type NamespaceStatus struct {
	Phase      string                      `json:"phase,omitempty"`
	Conditions []corev1.NamespaceCondition `json:"conditions,omitempty"`
}

// Binding is core/v1 Binding: the scheduler posts one to pods/binding to
// set a pod's node.
type Binding struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty"`
	Target     ObjectReference `json:"target"`
}
