package project

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/model"
)

// defaultStrategy is Kubernetes' default maxSurge and maxUnavailable.
var defaultStrategy = model.IntOrPercent{Val: 25, Percent: true}

// recreateSurge and recreateUnavailable stand in for a Recreate strategy:
// no pod above the desired count, every old pod may go at once.
var (
	recreateSurge       = model.IntOrPercent{Val: 0}
	recreateUnavailable = model.IntOrPercent{Val: 100, Percent: true}
)

func deploymentToModel(d *api.Deployment, m model.Meta) (*model.Deployment, error) {
	surge, unavailable, err := strategyToModel(d.Spec.Strategy)
	if err != nil {
		return nil, err
	}
	return &model.Deployment{
		Meta:               m,
		Replicas:           replicasOf(d.Spec.Replicas),
		Image:              imageOf(&d.Spec.Template.Spec),
		PodLabels:          cloneMap(d.Spec.Template.Labels),
		NodeSelector:       cloneMap(d.Spec.Template.Spec.NodeSelector),
		Template:           templateDigest(d.Spec.Template),
		MaxSurge:           surge,
		MaxUnavailable:     unavailable,
		Generation:         d.Generation,
		ObservedGeneration: d.Status.ObservedGeneration,
		Revision:           revisionOf(&d.ObjectMeta),
		Status: model.DeploymentStatus{
			Replicas:          int(d.Status.Replicas),
			UpdatedReplicas:   int(d.Status.UpdatedReplicas),
			ReadyReplicas:     int(d.Status.ReadyReplicas),
			AvailableReplicas: int(d.Status.AvailableReplicas),
		},
	}, nil
}

func newDeployment(o *model.Deployment) (*api.Deployment, error) {
	if o.Template != "" {
		return nil, fmt.Errorf("%w: Deployment %s: the model cannot render pod template %q, only read it", ErrUnsupported, o.Name, o.Template)
	}
	d := &api.Deployment{
		TypeMeta:   typeMeta(model.KindDeployment),
		ObjectMeta: objectMeta(model.KindDeployment, &o.Meta, nil),
		Spec: api.DeploymentSpec{
			Replicas: ptr(i32(o.Replicas)),
			Selector: &api.LabelSelector{MatchLabels: cloneMap(o.PodLabels)},
			Template: api.PodTemplateSpec{Spec: api.PodSpec{Containers: []api.Container{{Name: containerName(o.Image)}}}},
			Strategy: rollingUpdate(o.MaxSurge, o.MaxUnavailable),
		},
	}
	applyDeployment(d, o)
	return d, nil
}

func applyDeployment(d *api.Deployment, o *model.Deployment) {
	if replicasOf(d.Spec.Replicas) != o.Replicas {
		d.Spec.Replicas = ptr(i32(o.Replicas))
	}
	applyTemplate(&d.Spec.Template, o.Image, o.PodLabels, o.NodeSelector, o.Template)
	if s, u, err := strategyToModel(d.Spec.Strategy); err != nil || s != o.MaxSurge || u != o.MaxUnavailable {
		d.Spec.Strategy = rollingUpdate(o.MaxSurge, o.MaxUnavailable)
	}
	if d.Generation != o.Generation {
		d.Generation = o.Generation
	}
	setRevision(&d.ObjectMeta, o.Revision)
	st := &d.Status
	if st.ObservedGeneration != o.ObservedGeneration {
		st.ObservedGeneration = o.ObservedGeneration
	}
	setCount(&st.Replicas, o.Status.Replicas)
	setCount(&st.UpdatedReplicas, o.Status.UpdatedReplicas)
	setCount(&st.ReadyReplicas, o.Status.ReadyReplicas)
	setCount(&st.AvailableReplicas, o.Status.AvailableReplicas)
	setDeploymentConditions(st, o)
}

func replicaSetToModel(rs *api.ReplicaSet, m model.Meta, uids *UIDs) *model.ReplicaSet {
	return &model.ReplicaSet{
		Meta:         m,
		Replicas:     replicasOf(rs.Spec.Replicas),
		Image:        imageOf(&rs.Spec.Template.Spec),
		PodLabels:    uids.Shared(rs.Spec.Template.Labels), // its pods' (see Shared)
		NodeSelector: cloneMap(rs.Spec.Template.Spec.NodeSelector),
		Template:     templateDigest(rs.Spec.Template),
		Hash:         rs.Spec.Template.Labels[api.PodTemplateHashLabel],
		Revision:     revisionOf(&rs.ObjectMeta),
		Status: model.ReplicaSetStatus{
			Replicas:      int(rs.Status.Replicas),
			ReadyReplicas: int(rs.Status.ReadyReplicas),
		},
	}
}

// newReplicaSet stamps a ReplicaSet from its Deployment's pod template
// (containers, ports, env, probes, annotations), or from a bare one-container
// template when there is no Deployment. The model's labels, which carry
// pod-template-hash, go on the metadata, the selector and the template.
func newReplicaSet(o *model.ReplicaSet, template api.Object) (*api.ReplicaSet, error) {
	t, err := podTemplateOf(template, o.Image)
	if err != nil {
		return nil, err
	}
	if got := templateDigest(t); got != o.Template {
		// The owner's template moved on since the model decided: refuse
		// rather than stamp a ReplicaSet whose content its name denies.
		return nil, fmt.Errorf("%w: ReplicaSet %s is for pod template %q, the owner's is %q", ErrMismatch, o.Name, o.Template, got)
	}
	rs := &api.ReplicaSet{
		TypeMeta:   typeMeta(model.KindReplicaSet),
		ObjectMeta: objectMeta(model.KindReplicaSet, &o.Meta, template),
		Spec: api.ReplicaSetSpec{
			Replicas: ptr(i32(o.Replicas)),
			Selector: &api.LabelSelector{MatchLabels: cloneMap(o.PodLabels)},
			Template: t,
		},
	}
	if d, ok := template.(*api.Deployment); ok && d != nil && d.Annotations[changeCauseAnnotation] != "" {
		rs.Annotations = map[string]string{changeCauseAnnotation: d.Annotations[changeCauseAnnotation]}
	}
	applyReplicaSet(rs, o)
	return rs, nil
}

// applyReplicaSet writes the spec and status. Hash is not written on its
// own: it is the pod-template-hash label of PodLabels.
func applyReplicaSet(rs *api.ReplicaSet, o *model.ReplicaSet) {
	if replicasOf(rs.Spec.Replicas) != o.Replicas {
		rs.Spec.Replicas = ptr(i32(o.Replicas))
	}
	setRevision(&rs.ObjectMeta, o.Revision)
	applyTemplate(&rs.Spec.Template, o.Image, o.PodLabels, o.NodeSelector, o.Template)
	setCount(&rs.Status.Replicas, o.Status.Replicas)
	setCount(&rs.Status.ReadyReplicas, o.Status.ReadyReplicas)
}

// podTemplateOf copies the pod template of a Deployment or ReplicaSet, or
// makes a one-container template for image when there is none.
func podTemplateOf(template api.Object, image string) (api.PodTemplateSpec, error) {
	switch t := template.(type) {
	case nil:
		return api.PodTemplateSpec{Spec: api.PodSpec{Containers: []api.Container{{Name: containerName(image)}}}}, nil
	case *api.Deployment:
		if t != nil {
			return cleanTemplate(api.DeepCopy(t.Spec.Template)), nil
		}
	case *api.ReplicaSet:
		if t != nil {
			return cleanTemplate(api.DeepCopy(t.Spec.Template)), nil
		}
	case *api.StatefulSet:
		if t != nil {
			return cleanTemplate(api.DeepCopy(t.Spec.Template)), nil
		}
	}
	return api.PodTemplateSpec{}, fmt.Errorf("%w: %T is not a pod template holder", ErrMismatch, template)
}

// cleanTemplate keeps only the template metadata a copy should carry.
func cleanTemplate(t api.PodTemplateSpec) api.PodTemplateSpec {
	t.ObjectMeta = api.ObjectMeta{Labels: t.Labels, Annotations: t.Annotations}
	return t
}

// applyTemplate writes the model's view of a pod template. The rest of the
// template is only read, never rendered: a model that wants it gone ("")
// gets the bare template, any other digest leaves it as it is.
func applyTemplate(t *api.PodTemplateSpec, image string, labels, nodeSelector map[string]string, rest string) {
	if rest == "" && templateDigest(*t) != "" {
		*t = api.PodTemplateSpec{Spec: api.PodSpec{Containers: []api.Container{{Name: containerName(image)}}}}
	}
	setImage(&t.Spec, image)
	if !sameMap(t.Labels, labels) {
		t.Labels = cloneMap(labels)
	}
	if !sameMap(t.Spec.NodeSelector, nodeSelector) {
		t.Spec.NodeSelector = cloneMap(nodeSelector)
	}
}

// strategyToModel reads maxSurge and maxUnavailable, with Kubernetes'
// 25%/25% defaults.
func strategyToModel(s api.DeploymentStrategy) (surge, unavailable model.IntOrPercent, err error) {
	if s.Type == api.RecreateDeploymentStrategyType {
		return recreateSurge, recreateUnavailable, nil
	}
	surge, unavailable = defaultStrategy, defaultStrategy
	if ru := s.RollingUpdate; ru != nil {
		if ru.MaxSurge != nil {
			if surge, err = intOrPercent(*ru.MaxSurge); err != nil {
				return surge, unavailable, fmt.Errorf("maxSurge: %w", err)
			}
		}
		if ru.MaxUnavailable != nil {
			if unavailable, err = intOrPercent(*ru.MaxUnavailable); err != nil {
				return surge, unavailable, fmt.Errorf("maxUnavailable: %w", err)
			}
		}
	}
	return surge, unavailable, nil
}

func intOrPercent(v api.IntOrString) (model.IntOrPercent, error) {
	if v.Type == api.IntValue {
		return model.IntOrPercent{Val: int(v.IntVal)}, nil
	}
	n, err := strconv.Atoi(strings.TrimSuffix(v.StrVal, "%"))
	if err != nil || !strings.HasSuffix(v.StrVal, "%") {
		return model.IntOrPercent{}, fmt.Errorf("%w: %q", api.ErrInvalidIntOrPercent, v.StrVal)
	}
	return model.IntOrPercent{Val: n, Percent: true}, nil
}

func intOrString(v model.IntOrPercent) *api.IntOrString {
	if v.Percent {
		return ptr(api.FromString(v.String()))
	}
	return ptr(api.FromInt32(i32(v.Val)))
}

func rollingUpdate(surge, unavailable model.IntOrPercent) api.DeploymentStrategy {
	return api.DeploymentStrategy{
		Type:          api.RollingUpdateDeploymentStrategyType,
		RollingUpdate: &api.RollingUpdateDeployment{MaxSurge: intOrString(surge), MaxUnavailable: intOrString(unavailable)},
	}
}

// replicasOf is spec.replicas, 1 when unset as Kubernetes defaults it.
func replicasOf(r *int32) int {
	if r == nil {
		return 1
	}
	return int(*r)
}

func setCount(field *int32, n int) {
	if int(*field) != n {
		*field = i32(n)
	}
}

// imageOf is the first container's image: the model has one container.
func imageOf(s *api.PodSpec) string {
	if len(s.Containers) == 0 {
		return ""
	}
	return s.Containers[0].Image
}

// setImage writes the first container's image, adding a container if the
// spec has none and the image is not empty.
func setImage(s *api.PodSpec, image string) {
	if imageOf(s) == image {
		return
	}
	firstContainer(s, image).Image = image
}

// firstContainer is the container the model describes, created (named
// after image) if the spec has none.
func firstContainer(s *api.PodSpec, image string) *api.Container {
	if len(s.Containers) == 0 {
		s.Containers = []api.Container{{Name: containerName(image)}}
	}
	return &s.Containers[0]
}

// containerName derives a DNS-1123 label from an image reference:
// "registry/team/nginx:1.27" -> "nginx". "main" when nothing usable is left.
func containerName(image string) string {
	name := image[strings.LastIndex(image, "/")+1:]
	if i := strings.IndexAny(name, ":@"); i >= 0 {
		name = name[:i]
	}
	b := make([]byte, 0, len(name))
	for i := 0; i < len(name) && len(b) < 63; i++ {
		c := name[i]
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
			b = append(b, c)
		case c >= 'A' && c <= 'Z':
			b = append(b, c+'a'-'A')
		default:
			b = append(b, '-')
		}
	}
	if s := strings.Trim(string(b), "-"); s != "" {
		return s
	}
	return "main"
}
