package api

import (
	corev1 "k8s.io/api/core/v1"
)

// Pod is core/v1 Pod.
type Pod struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty"`
	Spec       PodSpec   `json:"spec,omitempty"`
	Status     PodStatus `json:"status,omitempty"`
}

// PodList is core/v1 PodList.
type PodList struct {
	TypeMeta `json:",inline"`
	ListMeta `json:"metadata,omitempty"`
	Items    []Pod `json:"items"`
}

// PodTemplateSpec is the pod a workload stamps out.
type PodTemplateSpec struct {
	ObjectMeta `json:"metadata,omitempty"`
	Spec       PodSpec `json:"spec,omitempty"`
}

// RestartPolicy says when the kubelet restarts a pod's containers.
type RestartPolicy string

const (
	RestartPolicyAlways    RestartPolicy = "Always"
	RestartPolicyOnFailure RestartPolicy = "OnFailure"
	RestartPolicyNever     RestartPolicy = "Never"
)

// DNSPolicy is the pod's DNS configuration mode.
type DNSPolicy string

const (
	DNSClusterFirstWithHostNet DNSPolicy = "ClusterFirstWithHostNet"
	DNSClusterFirst            DNSPolicy = "ClusterFirst"
	DNSDefault                 DNSPolicy = "Default"
	DNSNone                    DNSPolicy = "None"
)

// DefaultSchedulerName is the scheduler a pod gets when it names none.
const DefaultSchedulerName = "default-scheduler"

// PodSpec is the desired state of a pod.
type PodSpec struct {
	Containers                    []Container         `json:"containers"`
	RestartPolicy                 RestartPolicy       `json:"restartPolicy,omitempty"`
	TerminationGracePeriodSeconds *int64              `json:"terminationGracePeriodSeconds,omitempty"`
	ActiveDeadlineSeconds         *int64              `json:"activeDeadlineSeconds,omitempty"`
	DNSPolicy                     DNSPolicy           `json:"dnsPolicy,omitempty"`
	NodeSelector                  map[string]string   `json:"nodeSelector,omitempty"`
	ServiceAccountName            string              `json:"serviceAccountName,omitempty"`
	NodeName                      string              `json:"nodeName,omitempty"`
	SecurityContext               *PodSecurityContext `json:"securityContext,omitempty"`
	Hostname                      string              `json:"hostname,omitempty"`
	Subdomain                     string              `json:"subdomain,omitempty"`
	SchedulerName                 string              `json:"schedulerName,omitempty"`
	Tolerations                   []Toleration        `json:"tolerations,omitempty"`
	Priority                      *int32              `json:"priority,omitempty"`
	EnableServiceLinks            *bool               `json:"enableServiceLinks,omitempty"`

	// What the model does not act on is k8s.io/api's own, stored and
	// served back as sent.
	Volumes                      []corev1.Volume                   `json:"volumes,omitempty"`
	InitContainers               []corev1.Container                `json:"initContainers,omitempty"`
	ImagePullSecrets             []corev1.LocalObjectReference     `json:"imagePullSecrets,omitempty"`
	Affinity                     *corev1.Affinity                  `json:"affinity,omitempty"`
	TopologySpreadConstraints    []corev1.TopologySpreadConstraint `json:"topologySpreadConstraints,omitempty"`
	PriorityClassName            string                            `json:"priorityClassName,omitempty"`
	AutomountServiceAccountToken *bool                             `json:"automountServiceAccountToken,omitempty"`
	HostNetwork                  bool                              `json:"hostNetwork,omitempty"`
	HostPID                      bool                              `json:"hostPID,omitempty"`
	HostIPC                      bool                              `json:"hostIPC,omitempty"`
	ShareProcessNamespace        *bool                             `json:"shareProcessNamespace,omitempty"`
	HostAliases                  []corev1.HostAlias                `json:"hostAliases,omitempty"`
	DNSConfig                    *corev1.PodDNSConfig              `json:"dnsConfig,omitempty"`
	RuntimeClassName             *string                           `json:"runtimeClassName,omitempty"`
	ReadinessGates               []corev1.PodReadinessGate         `json:"readinessGates,omitempty"`
	PreemptionPolicy             *corev1.PreemptionPolicy          `json:"preemptionPolicy,omitempty"`
	SetHostnameAsFQDN            *bool                             `json:"setHostnameAsFQDN,omitempty"`
	OS                           *corev1.PodOS                     `json:"os,omitempty"`
	HostUsers                    *bool                             `json:"hostUsers,omitempty"`
	SchedulingGates              []corev1.PodSchedulingGate        `json:"schedulingGates,omitempty"`
	Resources                    *corev1.ResourceRequirements      `json:"resources,omitempty"`
	Overhead                     ResourceList                      `json:"overhead,omitempty"`
	EphemeralContainers          []corev1.EphemeralContainer       `json:"ephemeralContainers,omitempty"`
	ResourceClaims               []corev1.PodResourceClaim         `json:"resourceClaims,omitempty"`
	HostnameOverride             *string                           `json:"hostnameOverride,omitempty"`
	SchedulingGroup              *corev1.PodSchedulingGroup        `json:"schedulingGroup,omitempty"`
	EvictionResponders           []corev1.EvictionResponder        `json:"evictionResponders,omitempty"`
	// DeprecatedServiceAccount is serviceAccountName's old alias, which
	// upstream still accepts and serves.
	DeprecatedServiceAccount string `json:"serviceAccount,omitempty"`
}

// PodSecurityContext holds pod-level security settings; Kubernetes defaults
// it to {} and prints it, so converge models the common fields.
type PodSecurityContext struct {
	RunAsUser           *int64                         `json:"runAsUser,omitempty"`
	RunAsGroup          *int64                         `json:"runAsGroup,omitempty"`
	RunAsNonRoot        *bool                          `json:"runAsNonRoot,omitempty"`
	FSGroup             *int64                         `json:"fsGroup,omitempty"`
	SupplementalGroups  []int64                        `json:"supplementalGroups,omitempty"`
	FSGroupChangePolicy *corev1.PodFSGroupChangePolicy `json:"fsGroupChangePolicy,omitempty"`
	SeccompProfile      *corev1.SeccompProfile         `json:"seccompProfile,omitempty"`
	SELinuxOptions      *corev1.SELinuxOptions         `json:"seLinuxOptions,omitempty"`
	Sysctls             []corev1.Sysctl                `json:"sysctls,omitempty"`

	WindowsOptions           *corev1.WindowsSecurityContextOptions `json:"windowsOptions,omitempty"`
	SupplementalGroupsPolicy *corev1.SupplementalGroupsPolicy      `json:"supplementalGroupsPolicy,omitempty"`
	AppArmorProfile          *corev1.AppArmorProfile               `json:"appArmorProfile,omitempty"`
	SELinuxChangePolicy      *corev1.PodSELinuxChangePolicy        `json:"seLinuxChangePolicy,omitempty"`
}

// PullPolicy says when the kubelet pulls an image.
type PullPolicy string

const (
	PullAlways       PullPolicy = "Always"
	PullIfNotPresent PullPolicy = "IfNotPresent"
	PullNever        PullPolicy = "Never"
)

// Container is one container of a pod.
type Container struct {
	Name                     string               `json:"name"`
	Image                    string               `json:"image,omitempty"`
	Command                  []string             `json:"command,omitempty"`
	Args                     []string             `json:"args,omitempty"`
	WorkingDir               string               `json:"workingDir,omitempty"`
	Ports                    []ContainerPort      `json:"ports,omitempty"`
	Env                      []EnvVar             `json:"env,omitempty"`
	Resources                ResourceRequirements `json:"resources,omitempty"`
	LivenessProbe            *Probe               `json:"livenessProbe,omitempty"`
	ReadinessProbe           *Probe               `json:"readinessProbe,omitempty"`
	StartupProbe             *Probe               `json:"startupProbe,omitempty"`
	TerminationMessagePath   string               `json:"terminationMessagePath,omitempty"`
	TerminationMessagePolicy string               `json:"terminationMessagePolicy,omitempty"`
	ImagePullPolicy          PullPolicy           `json:"imagePullPolicy,omitempty"`

	// What the model does not act on is k8s.io/api's own.
	VolumeMounts    []corev1.VolumeMount           `json:"volumeMounts,omitempty"`
	VolumeDevices   []corev1.VolumeDevice          `json:"volumeDevices,omitempty"`
	EnvFrom         []corev1.EnvFromSource         `json:"envFrom,omitempty"`
	Lifecycle       *corev1.Lifecycle              `json:"lifecycle,omitempty"`
	SecurityContext *corev1.SecurityContext        `json:"securityContext,omitempty"`
	Stdin           bool                           `json:"stdin,omitempty"`
	StdinOnce       bool                           `json:"stdinOnce,omitempty"`
	TTY             bool                           `json:"tty,omitempty"`
	ResizePolicy    []corev1.ContainerResizePolicy `json:"resizePolicy,omitempty"`
	// A sidecar's (an init container's) or a rule's restart policy.
	RestartPolicy      *corev1.ContainerRestartPolicy `json:"restartPolicy,omitempty"`
	RestartPolicyRules []corev1.ContainerRestartRule  `json:"restartPolicyRules,omitempty"`
}

// Protocol is a network protocol of a port.
type Protocol string

const (
	ProtocolTCP  Protocol = "TCP"
	ProtocolUDP  Protocol = "UDP"
	ProtocolSCTP Protocol = "SCTP"
)

// ContainerPort is a port a container listens on.
type ContainerPort struct {
	Name          string   `json:"name,omitempty"`
	HostPort      int32    `json:"hostPort,omitempty"`
	ContainerPort int32    `json:"containerPort"`
	Protocol      Protocol `json:"protocol,omitempty"`
	HostIP        string   `json:"hostIP,omitempty"`
}

// EnvVar is one environment variable.
type EnvVar struct {
	Name      string               `json:"name"`
	Value     string               `json:"value,omitempty"`
	ValueFrom *corev1.EnvVarSource `json:"valueFrom,omitempty"`
}

// ResourceRequirements are a container's requests and limits.
type ResourceRequirements struct {
	Limits   ResourceList `json:"limits,omitempty"`
	Requests ResourceList `json:"requests,omitempty"`
	// Dynamic resource claims, which converge stores but does not allocate.
	Claims []corev1.ResourceClaim `json:"claims,omitempty"`
}

// Probe checks a container's health or readiness.
type Probe struct {
	Exec      *ExecAction      `json:"exec,omitempty"`
	HTTPGet   *HTTPGetAction   `json:"httpGet,omitempty"`
	TCPSocket *TCPSocketAction `json:"tcpSocket,omitempty"`
	// A gRPC health check the model does not run: k8s.io/api's own.
	GRPC                          *corev1.GRPCAction `json:"grpc,omitempty"`
	InitialDelaySeconds           int32              `json:"initialDelaySeconds,omitempty"`
	TimeoutSeconds                int32              `json:"timeoutSeconds,omitempty"`
	PeriodSeconds                 int32              `json:"periodSeconds,omitempty"`
	SuccessThreshold              int32              `json:"successThreshold,omitempty"`
	FailureThreshold              int32              `json:"failureThreshold,omitempty"`
	TerminationGracePeriodSeconds *int64             `json:"terminationGracePeriodSeconds,omitempty"`
}

// ExecAction runs a command in the container.
type ExecAction struct {
	Command []string `json:"command,omitempty"`
}

// HTTPHeader is a header sent by an HTTP probe.
type HTTPHeader struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// HTTPGetAction probes with an HTTP GET.
type HTTPGetAction struct {
	Path        string               `json:"path,omitempty"`
	Port        IntOrString          `json:"port"`
	Host        string               `json:"host,omitempty"`
	Scheme      string               `json:"scheme,omitempty"`
	HTTPHeaders []HTTPHeader         `json:"httpHeaders,omitempty"`
	Protocol    *corev1.HTTPProtocol `json:"protocol,omitempty"`
}

// TCPSocketAction probes by opening a TCP connection.
type TCPSocketAction struct {
	Port IntOrString `json:"port"`
	Host string      `json:"host,omitempty"`
}

// TolerationOperator relates a toleration to a taint value.
type TolerationOperator string

const (
	TolerationOpExists TolerationOperator = "Exists"
	TolerationOpEqual  TolerationOperator = "Equal"
)

// Toleration lets a pod land on (or stay on) a tainted node.
type Toleration struct {
	Key               string             `json:"key,omitempty"`
	Operator          TolerationOperator `json:"operator,omitempty"`
	Value             string             `json:"value,omitempty"`
	Effect            TaintEffect        `json:"effect,omitempty"`
	TolerationSeconds *int64             `json:"tolerationSeconds,omitempty"`
}

// PodPhase is the coarse lifecycle state of a pod.
type PodPhase string

const (
	PodPending   PodPhase = "Pending"
	PodRunning   PodPhase = "Running"
	PodSucceeded PodPhase = "Succeeded"
	PodFailed    PodPhase = "Failed"
	PodUnknown   PodPhase = "Unknown"
)

// Pod condition types.
const (
	PodScheduled    = "PodScheduled"
	PodInitialized  = "Initialized"
	ContainersReady = "ContainersReady"
	PodReady        = "Ready"
)

// PodReasonSchedulingGated is the PodScheduled condition's reason while a
// pod has scheduling gates.
const PodReasonSchedulingGated = "SchedulingGated"

// PodStatus is the observed state of a pod, written by the kubelet.
type PodStatus struct {
	Phase             PodPhase          `json:"phase,omitempty"`
	Conditions        []PodCondition    `json:"conditions,omitempty"`
	Message           string            `json:"message,omitempty"`
	Reason            string            `json:"reason,omitempty"`
	NominatedNodeName string            `json:"nominatedNodeName,omitempty"`
	HostIP            string            `json:"hostIP,omitempty"`
	HostIPs           []HostIP          `json:"hostIPs,omitempty"`
	PodIP             string            `json:"podIP,omitempty"`
	PodIPs            []PodIP           `json:"podIPs,omitempty"`
	StartTime         *Time             `json:"startTime,omitempty"`
	ContainerStatuses []ContainerStatus `json:"containerStatuses,omitempty"`
	QOSClass          string            `json:"qosClass,omitempty"`

	// What the kubelets of converge do not write, stored as sent.
	ObservedGeneration                   int64                                       `json:"observedGeneration,omitempty"`
	InitContainerStatuses                []corev1.ContainerStatus                    `json:"initContainerStatuses,omitempty"`
	EphemeralContainerStatuses           []corev1.ContainerStatus                    `json:"ephemeralContainerStatuses,omitempty"`
	Resize                               corev1.PodResizeStatus                      `json:"resize,omitempty"`
	ResourceClaimStatuses                []corev1.PodResourceClaimStatus             `json:"resourceClaimStatuses,omitempty"`
	ExtendedResourceClaimStatus          *corev1.PodExtendedResourceClaimStatus      `json:"extendedResourceClaimStatus,omitempty"`
	AllocatedResources                   ResourceList                                `json:"allocatedResources,omitempty"`
	Resources                            *corev1.ResourceRequirements                `json:"resources,omitempty"`
	NodeAllocatableResourceClaimStatuses []corev1.NodeAllocatableResourceClaimStatus `json:"nodeAllocatableResourceClaimStatuses,omitempty"`
	VolumeHealth                         []corev1.PodVolumeHealth                    `json:"volumeHealth,omitempty"`
}

// PodCondition is one condition of a pod.
type PodCondition struct {
	Type               string          `json:"type"`
	Status             ConditionStatus `json:"status"`
	LastProbeTime      Time            `json:"lastProbeTime,omitempty"`
	LastTransitionTime Time            `json:"lastTransitionTime,omitempty"`
	Reason             string          `json:"reason,omitempty"`
	Message            string          `json:"message,omitempty"`
	ObservedGeneration int64           `json:"observedGeneration,omitempty"`
}

// PodIP is one address of a pod.
type PodIP struct {
	IP string `json:"ip"`
}

// HostIP is one address of a pod's node.
type HostIP struct {
	IP string `json:"ip"`
}

// ContainerStatus is the observed state of one container.
type ContainerStatus struct {
	Name         string         `json:"name"`
	State        ContainerState `json:"state,omitempty"`
	LastState    ContainerState `json:"lastState,omitempty"`
	Ready        bool           `json:"ready"`
	RestartCount int32          `json:"restartCount"`
	Image        string         `json:"image"`
	ImageID      string         `json:"imageID"`
	ContainerID  string         `json:"containerID,omitempty"`
	Started      *bool          `json:"started,omitempty"`

	AllocatedResources       ResourceList                 `json:"allocatedResources,omitempty"`
	Resources                *corev1.ResourceRequirements `json:"resources,omitempty"`
	VolumeMounts             []corev1.VolumeMountStatus   `json:"volumeMounts,omitempty"`
	User                     *corev1.ContainerUser        `json:"user,omitempty"`
	AllocatedResourcesStatus []corev1.ResourceStatus      `json:"allocatedResourcesStatus,omitempty"`
	StopSignal               *corev1.Signal               `json:"stopSignal,omitempty"`
}

// ContainerState holds at most one of its members.
type ContainerState struct {
	Waiting    *ContainerStateWaiting    `json:"waiting,omitempty"`
	Running    *ContainerStateRunning    `json:"running,omitempty"`
	Terminated *ContainerStateTerminated `json:"terminated,omitempty"`
}

// ContainerStateWaiting is a container not yet running.
type ContainerStateWaiting struct {
	Reason  string `json:"reason,omitempty"`
	Message string `json:"message,omitempty"`
}

// ContainerStateRunning is a running container.
type ContainerStateRunning struct {
	StartedAt Time `json:"startedAt,omitempty"`
}

// ContainerStateTerminated is a container that exited.
type ContainerStateTerminated struct {
	ExitCode    int32  `json:"exitCode"`
	Signal      int32  `json:"signal,omitempty"`
	Reason      string `json:"reason,omitempty"`
	Message     string `json:"message,omitempty"`
	StartedAt   Time   `json:"startedAt,omitempty"`
	FinishedAt  Time   `json:"finishedAt,omitempty"`
	ContainerID string `json:"containerID,omitempty"`
}
