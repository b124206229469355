package api

import "github.com/converge-dev/converge/model"

// PodTemplateHashLabel is the label the deployment controller puts on a
// ReplicaSet and its pods to tie them to one template.
const PodTemplateHashLabel = "pod-template-hash"

// PodTemplateHash is the pod-template-hash of a template: the model's
// TemplateHash of the first container's image and the template labels, so
// the model and the implementation name ReplicaSets alike. A
// pod-template-hash label already on the template is ignored, so a
// ReplicaSet's template hashes the same as its Deployment's.
func PodTemplateHash(t PodTemplateSpec) string {
	image := ""
	if len(t.Spec.Containers) > 0 {
		image = t.Spec.Containers[0].Image
	}
	labels := t.Labels
	if _, ok := labels[PodTemplateHashLabel]; ok {
		labels = make(map[string]string, len(t.Labels))
		for k, v := range t.Labels {
			if k != PodTemplateHashLabel {
				labels[k] = v
			}
		}
	}
	return model.TemplateHash(image, labels)
}
