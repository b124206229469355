package kubeproto

// k8s.io/api/core/v1 messages. Fields marked "not modelled" are ones
// Kubernetes always writes (non-pointer Go fields) that converge's types
// lack: they disappear when zero and are refused by strict decoding
// otherwise.
func init() {
	register(map[string]message{
		"Namespace": {
			1: msg("metadata", "ObjectMeta"),
			2: msg("spec", "NamespaceSpec"),
			3: msg("status", "NamespaceStatus"),
		},
		"NamespaceSpec":   {1: strList("finalizers")},
		"NamespaceStatus": {1: str("phase")},

		"Pod": {
			1: msg("metadata", "ObjectMeta"),
			2: msg("spec", "PodSpec"),
			3: msg("status", "PodStatus"),
		},
		"PodTemplateSpec": {
			1: msg("metadata", "ObjectMeta"),
			2: msg("spec", "PodSpec"),
		},
		"PodSpec": {
			2:  msgList("containers", "Container"),
			3:  str("restartPolicy"),
			4:  optional(i64("terminationGracePeriodSeconds")),
			5:  optional(i64("activeDeadlineSeconds")),
			6:  str("dnsPolicy"),
			7:  strMap("nodeSelector"),
			8:  str("serviceAccountName"),
			9:  str("serviceAccount"), // not modelled
			10: str("nodeName"),
			11: boolean("hostNetwork"), // not modelled
			12: boolean("hostPID"),     // not modelled
			13: boolean("hostIPC"),     // not modelled
			14: msg("securityContext", "PodSecurityContext"),
			16: str("hostname"),
			17: str("subdomain"),
			19: str("schedulerName"),
			22: msgList("tolerations", "Toleration"),
			24: str("priorityClassName"), // not modelled
			25: optional(i32("priority")),
			30: optional(boolean("enableServiceLinks")),
		},
		"PodSecurityContext": {
			2: optional(i64("runAsUser")),
			6: optional(i64("runAsGroup")),
			3: optional(boolean("runAsNonRoot")),
			5: optional(i64("fsGroup")),
		},
		"Container": {
			1:  str("name"),
			2:  str("image"),
			3:  strList("command"),
			4:  strList("args"),
			5:  str("workingDir"),
			6:  msgList("ports", "ContainerPort"),
			7:  msgList("env", "EnvVar"),
			8:  msg("resources", "ResourceRequirements"),
			10: msg("livenessProbe", "Probe"),
			11: msg("readinessProbe", "Probe"),
			22: msg("startupProbe", "Probe"),
			13: str("terminationMessagePath"),
			20: str("terminationMessagePolicy"),
			14: str("imagePullPolicy"),
			16: boolean("stdin"),     // not modelled
			17: boolean("stdinOnce"), // not modelled
			18: boolean("tty"),       // not modelled
		},
		"ContainerPort": {
			1: str("name"),
			2: i32("hostPort"),
			3: i32("containerPort"),
			4: str("protocol"),
			5: str("hostIP"),
		},
		"EnvVar": {
			1: str("name"),
			2: str("value"),
		},
		"ResourceRequirements": {
			1: quantityMap("limits"),
			2: quantityMap("requests"),
		},
		"Probe": {
			1: inline("ProbeHandler"),
			2: i32("initialDelaySeconds"),
			3: i32("timeoutSeconds"),
			4: i32("periodSeconds"),
			5: i32("successThreshold"),
			6: i32("failureThreshold"),
			7: optional(i64("terminationGracePeriodSeconds")),
		},
		"ProbeHandler": {
			1: msg("exec", "ExecAction"),
			2: msg("httpGet", "HTTPGetAction"),
			3: msg("tcpSocket", "TCPSocketAction"),
		},
		"ExecAction": {1: strList("command")},
		"HTTPGetAction": {
			1: str("path"),
			2: intOrStr("port"),
			3: str("host"),
			4: str("scheme"),
			5: msgList("httpHeaders", "HTTPHeader"),
		},
		"HTTPHeader": {
			1: str("name"),
			2: str("value"),
		},
		"TCPSocketAction": {
			1: intOrStr("port"),
			2: str("host"),
		},
		"Toleration": {
			1: str("key"),
			2: str("operator"),
			3: str("value"),
			4: str("effect"),
			5: optional(i64("tolerationSeconds")),
		},
		"PodStatus": {
			1:  str("phase"),
			2:  msgList("conditions", "PodCondition"),
			3:  str("message"),
			4:  str("reason"),
			11: str("nominatedNodeName"),
			5:  str("hostIP"),
			16: msgList("hostIPs", "HostIP"),
			6:  str("podIP"),
			12: msgList("podIPs", "PodIP"),
			7:  timestamp("startTime"),
			8:  msgList("containerStatuses", "ContainerStatus"),
			9:  str("qosClass"),
			14: str("resize"),             // not modelled
			17: i64("observedGeneration"), // not modelled
		},
		"PodCondition": {
			1: str("type"),
			2: str("status"),
			3: timestamp("lastProbeTime"),
			4: timestamp("lastTransitionTime"),
			5: str("reason"),
			6: str("message"),
			7: i64("observedGeneration"), // not modelled
		},
		"HostIP": {1: str("ip")},
		"PodIP":  {1: str("ip")},
		"ContainerStatus": {
			1: str("name"),
			2: msg("state", "ContainerState"),
			3: msg("lastState", "ContainerState"),
			4: boolean("ready"),
			5: i32("restartCount"),
			6: str("image"),
			7: str("imageID"),
			8: str("containerID"),
			9: optional(boolean("started")),
		},
		"ContainerState": {
			1: msg("waiting", "ContainerStateWaiting"),
			2: msg("running", "ContainerStateRunning"),
			3: msg("terminated", "ContainerStateTerminated"),
		},
		"ContainerStateWaiting": {
			1: str("reason"),
			2: str("message"),
		},
		"ContainerStateRunning": {1: timestamp("startedAt")},
		"ContainerStateTerminated": {
			1: i32("exitCode"),
			2: i32("signal"),
			3: str("reason"),
			4: str("message"),
			5: timestamp("startedAt"),
			6: timestamp("finishedAt"),
			7: str("containerID"),
		},

		"Service": {
			1: msg("metadata", "ObjectMeta"),
			2: msg("spec", "ServiceSpec"),
			3: msg("status", "ServiceStatus"),
		},
		"ServiceSpec": {
			1:  msgList("ports", "ServicePort"),
			2:  strMap("selector"),
			3:  str("clusterIP"),
			18: strList("clusterIPs"),
			4:  str("type"),
			5:  strList("externalIPs"), // not modelled
			7:  str("sessionAffinity"),
			8:  str("loadBalancerIP"), // not modelled
			10: str("externalName"),
			11: str("externalTrafficPolicy"),        // not modelled
			12: i32("healthCheckNodePort"),          // not modelled
			13: boolean("publishNotReadyAddresses"), // not modelled
		},
		"ServicePort": {
			1: str("name"),
			2: str("protocol"),
			3: i32("port"),
			4: intOrStr("targetPort"),
			5: i32("nodePort"),
		},
		"ServiceStatus":      {1: msg("loadBalancer", "LoadBalancerStatus")},
		"LoadBalancerStatus": {1: msgList("ingress", "LoadBalancerIngress")},
		"LoadBalancerIngress": {
			1: str("ip"),
			2: str("hostname"),
		},

		"Node": {
			1: msg("metadata", "ObjectMeta"),
			2: msg("spec", "NodeSpec"),
			3: msg("status", "NodeStatus"),
		},
		"NodeSpec": {
			1: str("podCIDR"),
			7: strList("podCIDRs"),
			3: str("providerID"),
			4: boolean("unschedulable"),
			5: msgList("taints", "Taint"),
			2: str("externalID"), // not modelled
		},
		"Taint": {
			1: str("key"),
			2: str("value"),
			3: str("effect"),
			4: timestamp("timeAdded"),
		},
		"NodeStatus": {
			1: quantityMap("capacity"),
			2: quantityMap("allocatable"),
			3: str("phase"),
			4: msgList("conditions", "NodeCondition"),
			5: msgList("addresses", "NodeAddress"),
			6: msg("daemonEndpoints", "NodeDaemonEndpoints"),
			7: msg("nodeInfo", "NodeSystemInfo"),
			8: msgList("images", "ContainerImage"),
		},
		"NodeCondition": {
			1: str("type"),
			2: str("status"),
			3: timestamp("lastHeartbeatTime"),
			4: timestamp("lastTransitionTime"),
			5: str("reason"),
			6: str("message"),
		},
		"NodeAddress": {
			1: str("type"),
			2: str("address"),
		},
		"NodeDaemonEndpoints": {1: msg("kubeletEndpoint", "DaemonEndpoint")},
		"DaemonEndpoint":      {1: i32("Port")},
		"NodeSystemInfo": {
			1:  str("machineID"),
			2:  str("systemUUID"),
			3:  str("bootID"),
			4:  str("kernelVersion"),
			5:  str("osImage"),
			6:  str("containerRuntimeVersion"),
			7:  str("kubeletVersion"),
			8:  str("kubeProxyVersion"),
			9:  str("operatingSystem"),
			10: str("architecture"),
		},
		"ContainerImage": {
			1: strList("names"),
			2: i64("sizeBytes"),
		},

		"Endpoints": {
			1: msg("metadata", "ObjectMeta"),
			2: msgList("subsets", "EndpointSubset"),
		},
		"EndpointSubset": {
			1: msgList("addresses", "EndpointAddress"),
			2: msgList("notReadyAddresses", "EndpointAddress"),
			3: msgList("ports", "EndpointPort"),
		},
		"EndpointAddress": {
			1: str("ip"),
			3: str("hostname"),
			4: str("nodeName"),
			2: msg("targetRef", "ObjectReference"),
		},
		"EndpointPort": {
			1: str("name"),
			2: i32("port"),
			3: str("protocol"),
		},
		"ObjectReference": {
			1: str("kind"),
			2: str("namespace"),
			3: str("name"),
			4: str("uid"),
			5: str("apiVersion"),
			6: str("resourceVersion"),
			7: str("fieldPath"),
		},
	})
}
