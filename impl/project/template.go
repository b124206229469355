package project

import (
	"encoding/json"
	"hash/fnv"
	"strconv"

	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/model"
)

// A pod template's identity is the model's Image, PodLabels, NodeSelector
// and Template, where Template is a digest of everything else the template
// holds (env, ports, probes, resources, annotations such as kubectl rollout
// restart's). Digests are taken after defaulting, so a template and its
// stored, defaulted form agree; the template the model renders for a bare
// image digests to "".

// revisionAnnotation is where the deployment controller numbers rollouts;
// kubectl rollout history and undo read it from ReplicaSets.
const revisionAnnotation = "deployment.kubernetes.io/revision"

// changeCauseAnnotation is copied from a Deployment to its ReplicaSets, as
// upstream does, for rollout history's CHANGE-CAUSE column.
const changeCauseAnnotation = "kubernetes.io/change-cause"

// bareTemplateRest is what a rendered one-container template leaves once
// the model's fields are stripped.
var bareTemplateRest = templateRest(api.PodTemplateSpec{Spec: api.PodSpec{Containers: []api.Container{{}}}})

// templateRest is t, defaulted, as JSON without the fields the model
// carries: labels, nodeSelector, and the first container's image, name and
// pull policy (the last two follow the image when the model renders them,
// so a change of only those does not roll out).
func templateRest(t api.PodTemplateSpec) string {
	holder := &api.Deployment{Spec: api.DeploymentSpec{Template: api.DeepCopy(t)}}
	api.Default(holder)
	r := holder.Spec.Template
	r.ObjectMeta = api.ObjectMeta{Annotations: r.Annotations}
	r.Spec.NodeSelector = nil
	if len(r.Spec.Containers) > 0 {
		c := &r.Spec.Containers[0]
		c.Name, c.Image, c.ImagePullPolicy = "", "", ""
	}
	b, err := json.Marshal(r)
	if err != nil {
		return "unencodable"
	}
	return string(b)
}

// templateDigest is the model's Template for t: "" when t holds nothing
// beyond the model's fields, else a short hash of the rest.
func templateDigest(t api.PodTemplateSpec) string {
	rest := templateRest(t)
	if rest == bareTemplateRest {
		return ""
	}
	h := fnv.New64a()
	h.Write([]byte(rest))
	return strconv.FormatUint(h.Sum64(), 36)
}

// TemplateHash is the pod-template-hash of t, as the model's deployment
// controller names its ReplicaSet. A pod-template-hash label already on t
// is ignored, so a ReplicaSet's template hashes as its Deployment's does.
func TemplateHash(t api.PodTemplateSpec) string {
	labels := t.Labels
	if _, ok := labels[api.PodTemplateHashLabel]; ok {
		labels = make(map[string]string, len(t.Labels))
		for k, v := range t.Labels {
			if k != api.PodTemplateHashLabel {
				labels[k] = v
			}
		}
	}
	return model.TemplateHash(imageOf(&t.Spec), labels, templateDigest(t))
}

// revisionOf reads a ReplicaSet's rollout number; a missing or malformed
// annotation is 0, as upstream reads it.
func revisionOf(m *api.ObjectMeta) int {
	n, err := strconv.Atoi(m.Annotations[revisionAnnotation])
	if err != nil || n < 0 {
		return 0
	}
	return n
}

func setRevision(m *api.ObjectMeta, n int) {
	if revisionOf(m) == n {
		return
	}
	if n == 0 {
		delete(m.Annotations, revisionAnnotation)
		return
	}
	if m.Annotations == nil {
		m.Annotations = map[string]string{}
	}
	m.Annotations[revisionAnnotation] = strconv.Itoa(n)
}
