package kubeproto

// k8s.io/api/authorization/v1 messages: the SelfSubjectAccessReview that
// kubectl auth can-i sends.
func init() {
	register(map[string]message{
		"SelfSubjectAccessReview": {
			1: msg("metadata", "ObjectMeta"),
			2: msg("spec", "SelfSubjectAccessReviewSpec"),
			3: msg("status", "SubjectAccessReviewStatus"),
		},
		"SelfSubjectAccessReviewSpec": {
			1: msg("resourceAttributes", "ResourceAttributes"),
			2: msg("nonResourceAttributes", "NonResourceAttributes"),
		},
		"ResourceAttributes": {
			1: str("namespace"),
			2: str("verb"),
			3: str("group"),
			4: str("version"),
			5: str("resource"),
			6: str("subresource"),
			7: str("name"),
		},
		"NonResourceAttributes": {
			1: str("path"),
			2: str("verb"),
		},
		"SubjectAccessReviewStatus": {
			1: boolean("allowed"),
			4: boolean("denied"),
			2: str("reason"),
			3: str("evaluationError"),
		},
	})
}
