package api

// PodTemplateHashLabel is the label the deployment controller puts on a
// ReplicaSet and its pods to tie them to one template (its value is
// project.TemplateHash, the model's name for the template).
const PodTemplateHashLabel = "pod-template-hash"
