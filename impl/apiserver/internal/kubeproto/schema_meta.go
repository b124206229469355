package kubeproto

// k8s.io/apimachinery/pkg/apis/meta/v1 messages.
func init() {
	register(map[string]message{
		"ObjectMeta": {
			1:  str("name"),
			2:  str("generateName"),
			3:  str("namespace"),
			4:  str("selfLink"), // always written, not modelled: must be empty
			5:  str("uid"),
			6:  str("resourceVersion"),
			7:  i64("generation"),
			8:  timestamp("creationTimestamp"),
			9:  timestamp("deletionTimestamp"),
			10: optional(i64("deletionGracePeriodSeconds")),
			11: strMap("labels"),
			12: strMap("annotations"),
			13: msgList("ownerReferences", "OwnerReference"),
			14: strList("finalizers"),
			17: msgList("managedFields", "ManagedFieldsEntry"),
		},
		"DeleteOptions": {
			1: optional(i64("gracePeriodSeconds")),
			2: msg("preconditions", "Preconditions"),
			3: optional(boolean("orphanDependents")),
			4: str("propagationPolicy"),
			5: strList("dryRun"),
		},
		"Preconditions": {
			1: str("uid"),
			2: str("resourceVersion"),
		},
		"OwnerReference": {
			5: str("apiVersion"),
			1: str("kind"),
			3: str("name"),
			4: str("uid"),
			6: optional(boolean("controller")),
			7: optional(boolean("blockOwnerDeletion")),
		},
		"ManagedFieldsEntry": {
			1: str("manager"),
			2: str("operation"),
			3: str("apiVersion"),
			4: timestamp("time"),
			6: str("fieldsType"),
			7: rawJSON("fieldsV1"),
			8: str("subresource"),
		},
		"LabelSelector": {
			1: strMap("matchLabels"),
			2: msgList("matchExpressions", "LabelSelectorRequirement"),
		},
		"LabelSelectorRequirement": {
			1: str("key"),
			2: str("operator"),
			3: strList("values"),
		},
	})
}
