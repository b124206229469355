package kubeproto

// k8s.io/api/apps/v1 messages.
func init() {
	register(map[string]message{
		"Deployment": {
			1: msg("metadata", "ObjectMeta"),
			2: msg("spec", "DeploymentSpec"),
			3: msg("status", "DeploymentStatus"),
		},
		"DeploymentSpec": {
			1: optional(i32("replicas")),
			2: msg("selector", "LabelSelector"),
			3: msg("template", "PodTemplateSpec"),
			4: msg("strategy", "DeploymentStrategy"),
			5: i32("minReadySeconds"),
			6: optional(i32("revisionHistoryLimit")),
			7: boolean("paused"),
			9: optional(i32("progressDeadlineSeconds")),
		},
		"DeploymentStrategy": {
			1: str("type"),
			2: msg("rollingUpdate", "RollingUpdateDeployment"),
		},
		"RollingUpdateDeployment": {
			1: intOrStr("maxUnavailable"),
			2: intOrStr("maxSurge"),
		},
		"DeploymentStatus": {
			1: i64("observedGeneration"),
			2: i32("replicas"),
			3: i32("updatedReplicas"),
			7: i32("readyReplicas"),
			4: i32("availableReplicas"),
			5: i32("unavailableReplicas"),
			6: msgList("conditions", "DeploymentCondition"),
			8: optional(i32("collisionCount")),
		},
		"DeploymentCondition": {
			1: str("type"),
			2: str("status"),
			6: timestamp("lastUpdateTime"),
			7: timestamp("lastTransitionTime"),
			4: str("reason"),
			5: str("message"),
		},
		"ReplicaSet": {
			1: msg("metadata", "ObjectMeta"),
			2: msg("spec", "ReplicaSetSpec"),
			3: msg("status", "ReplicaSetStatus"),
		},
		"ReplicaSetSpec": {
			1: optional(i32("replicas")),
			4: i32("minReadySeconds"),
			2: msg("selector", "LabelSelector"),
			3: msg("template", "PodTemplateSpec"),
		},
		"ReplicaSetStatus": {
			1: i32("replicas"),
			2: i32("fullyLabeledReplicas"),
			4: i32("readyReplicas"),
			5: i32("availableReplicas"),
			3: i64("observedGeneration"),
			6: msgList("conditions", "ReplicaSetCondition"),
		},
		"ReplicaSetCondition": {
			1: str("type"),
			2: str("status"),
			3: timestamp("lastTransitionTime"),
			4: str("reason"),
			5: str("message"),
		},
	})
}
