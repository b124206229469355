package apiserver

// fieldExt is what Kubernetes' schemas say about one field beyond its type:
// how strategic merge patch and server-side apply treat a list or map.
// Server-side apply reads the same table (listType, mapKeys, mapType,
// keyDefault), so the OpenAPI documents and apply cannot disagree.
type fieldExt struct {
	mergeKey string   // x-kubernetes-patch-merge-key
	strategy string   // x-kubernetes-patch-strategy
	listType string   // x-kubernetes-list-type: map, set or atomic
	mapKeys  []string // x-kubernetes-list-map-keys
	mapType  string   // x-kubernetes-map-type: atomic or granular
	// keyDefault is the schema default of a field (used for list-map keys
	// the applied configuration leaves out, as Kubernetes does).
	keyDefault any
}

// fieldExts is keyed by "GoType.jsonName", as in Kubernetes' types.go
// markers.
var fieldExts = map[string]fieldExt{
	"ObjectMeta.ownerReferences":      {mergeKey: "uid", strategy: "merge", listType: "map", mapKeys: []string{"uid"}},
	"ObjectMeta.finalizers":           {strategy: "merge", listType: "set"},
	"ObjectMeta.managedFields":        {listType: "atomic"},
	"LabelSelector.matchExpressions":  {listType: "atomic"},
	"LabelSelectorRequirement.values": {listType: "atomic"},

	"PodSpec.containers":                    {mergeKey: "name", strategy: "merge", listType: "map", mapKeys: []string{"name"}},
	"PodSpec.tolerations":                   {listType: "atomic"},
	"PodSpec.volumes":                       {mergeKey: "name", strategy: "merge,retainKeys", listType: "map", mapKeys: []string{"name"}},
	"PodSpec.initContainers":                {mergeKey: "name", strategy: "merge", listType: "map", mapKeys: []string{"name"}},
	"PodSpec.imagePullSecrets":              {mergeKey: "name", strategy: "merge", listType: "map", mapKeys: []string{"name"}},
	"PodSpec.topologySpreadConstraints":     {mergeKey: "topologyKey", strategy: "merge", listType: "map", mapKeys: []string{"topologyKey", "whenUnsatisfiable"}},
	"PodSpec.hostAliases":                   {mergeKey: "ip", strategy: "merge", listType: "map", mapKeys: []string{"ip"}},
	"PodSpec.readinessGates":                {listType: "atomic"},
	"Container.volumeMounts":                {mergeKey: "mountPath", strategy: "merge", listType: "map", mapKeys: []string{"mountPath"}},
	"Container.volumeDevices":               {mergeKey: "devicePath", strategy: "merge", listType: "map", mapKeys: []string{"devicePath"}},
	"Container.envFrom":                     {listType: "atomic"},
	"PodSecurityContext.supplementalGroups": {listType: "atomic"},
	"PodSecurityContext.sysctls":            {listType: "atomic"},
	"PodSpec.nodeSelector":                  {mapType: "atomic"},
	"Container.ports":                       {mergeKey: "containerPort", strategy: "merge", listType: "map", mapKeys: []string{"containerPort", "protocol"}},
	"Container.env":                         {mergeKey: "name", strategy: "merge", listType: "map", mapKeys: []string{"name"}},
	"Container.command":                     {listType: "atomic"},
	"Container.args":                        {listType: "atomic"},
	"ContainerPort.protocol":                {keyDefault: "TCP"},
	"HTTPGetAction.httpHeaders":             {listType: "atomic"},
	"ExecAction.command":                    {listType: "atomic"},

	"PodStatus.conditions":        {mergeKey: "type", strategy: "merge", listType: "map", mapKeys: []string{"type"}},
	"PodStatus.podIPs":            {mergeKey: "ip", strategy: "merge", listType: "map", mapKeys: []string{"ip"}},
	"PodStatus.hostIPs":           {mergeKey: "ip", strategy: "merge", listType: "atomic"},
	"PodStatus.containerStatuses": {listType: "atomic"},

	"ServiceSpec.ports":                    {mergeKey: "port", strategy: "merge", listType: "map", mapKeys: []string{"port", "protocol"}},
	"ServiceSpec.selector":                 {mapType: "atomic"},
	"ServiceSpec.clusterIPs":               {listType: "atomic"},
	"ServiceSpec.externalIPs":              {listType: "atomic"},
	"ServiceSpec.loadBalancerSourceRanges": {listType: "atomic"},
	"ServiceSpec.ipFamilies":               {listType: "atomic"},
	"ServicePort.protocol":                 {keyDefault: "TCP"},

	"NodeSpec.podCIDRs":     {strategy: "merge", listType: "set"},
	"NodeSpec.taints":       {listType: "atomic"},
	"NodeStatus.conditions": {mergeKey: "type", strategy: "merge", listType: "map", mapKeys: []string{"type"}},
	"NodeStatus.addresses":  {mergeKey: "type", strategy: "merge", listType: "map", mapKeys: []string{"type"}},
	"NodeStatus.images":     {listType: "atomic"},

	"EndpointSubset.addresses":         {listType: "atomic"},
	"EndpointSubset.notReadyAddresses": {listType: "atomic"},
	"EndpointSubset.ports":             {listType: "atomic"},
	"Endpoints.subsets":                {listType: "atomic"},

	"DeploymentStatus.conditions": {mergeKey: "type", strategy: "merge", listType: "map", mapKeys: []string{"type"}},
	"ReplicaSetStatus.conditions": {mergeKey: "type", strategy: "merge", listType: "map", mapKeys: []string{"type"}},
	"DeploymentSpec.strategy":     {strategy: "retainKeys"},
}

// atomicTypes are struct types Kubernetes marks x-kubernetes-map-type:
// atomic: an applier owns them whole.
var atomicTypes = map[string]bool{
	"LabelSelector":   true,
	"ObjectReference": true,
}

// extensions renders e as OpenAPI vendor extensions.
func (e fieldExt) extensions() map[string]any {
	out := map[string]any{}
	if e.mergeKey != "" {
		out["x-kubernetes-patch-merge-key"] = e.mergeKey
	}
	if e.strategy != "" {
		out["x-kubernetes-patch-strategy"] = e.strategy
	}
	if e.listType != "" {
		out["x-kubernetes-list-type"] = e.listType
	}
	if len(e.mapKeys) > 0 {
		out["x-kubernetes-list-map-keys"] = e.mapKeys
	}
	if e.mapType != "" {
		out["x-kubernetes-map-type"] = e.mapType
	}
	if e.keyDefault != nil {
		out["default"] = e.keyDefault
	}
	return out
}
