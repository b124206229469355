package project

import (
	"fmt"
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/model"
)

// A StatefulSet projects as a Deployment's template does (image, labels,
// nodeSelector, the digest of the rest), with its serviceName, pod
// management policy, claim templates' names and retention policy. Its
// pods get their hostname and subdomain from their name and the set's
// serviceName, and a volume per claim template naming their own claim,
// as upstream's controller stamps them; a claim is stamped from the
// set's template of that name.

// defaultClaimSize is the storage a claim template the model renders
// asks for.
var defaultClaimSize = resource.MustParse("1Gi")

func statefulSetToModel(s *api.StatefulSet, m model.Meta) *model.StatefulSet {
	o := &model.StatefulSet{
		Meta:         m,
		Replicas:     replicasOf(s.Spec.Replicas),
		Image:        imageOf(&s.Spec.Template.Spec),
		PodLabels:    cloneMap(s.Spec.Template.Labels),
		NodeSelector: cloneMap(s.Spec.Template.Spec.NodeSelector),
		Template:     templateDigest(s.Spec.Template),
		ServiceName:  s.Spec.ServiceName,
		Parallel:     s.Spec.PodManagementPolicy == appsv1.ParallelPodManagement,
		Generation:   s.Generation,
		Status: model.StatefulSetStatus{
			ObservedGeneration: s.Status.ObservedGeneration,
			Replicas:           int(s.Status.Replicas),
			ReadyReplicas:      int(s.Status.ReadyReplicas),
			CurrentReplicas:    int(s.Status.CurrentReplicas),
			UpdatedReplicas:    int(s.Status.UpdatedReplicas),
			AvailableReplicas:  int(s.Status.AvailableReplicas),
			CurrentRevision:    s.Status.CurrentRevision,
			UpdateRevision:     s.Status.UpdateRevision,
		},
	}
	for _, t := range s.Spec.VolumeClaimTemplates {
		o.ClaimTemplates = append(o.ClaimTemplates, t.Name)
	}
	if p := s.Spec.PersistentVolumeClaimRetentionPolicy; p != nil {
		o.DeleteClaimsWhenDeleted = p.WhenDeleted == appsv1.DeletePersistentVolumeClaimRetentionPolicyType
		o.DeleteClaimsWhenScaled = p.WhenScaled == appsv1.DeletePersistentVolumeClaimRetentionPolicyType
	}
	return o
}

func newStatefulSet(o *model.StatefulSet) (*api.StatefulSet, error) {
	if o.Template != "" {
		return nil, fmt.Errorf("%w: StatefulSet %s: the model cannot render pod template %q, only read it", ErrUnsupported, o.Name, o.Template)
	}
	s := &api.StatefulSet{
		TypeMeta:   typeMeta(model.KindStatefulSet),
		ObjectMeta: objectMeta(model.KindStatefulSet, &o.Meta, nil),
		Spec: appsv1.StatefulSetSpec{
			Replicas:    ptr(i32(o.Replicas)),
			Selector:    &api.LabelSelector{MatchLabels: cloneMap(o.PodLabels)},
			Template:    api.PodTemplateSpec{Spec: api.PodSpec{Containers: []api.Container{{Name: containerName(o.Image)}}}},
			ServiceName: o.ServiceName,
		},
	}
	if o.Parallel {
		s.Spec.PodManagementPolicy = appsv1.ParallelPodManagement
	}
	for _, t := range o.ClaimTemplates {
		s.Spec.VolumeClaimTemplates = append(s.Spec.VolumeClaimTemplates, corev1.PersistentVolumeClaim{
			ObjectMeta: api.ObjectMeta{Name: t},
			Spec: corev1.PersistentVolumeClaimSpec{
				AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
				Resources:   corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: defaultClaimSize}},
			},
		})
	}
	applyStatefulSet(s, o)
	return s, nil
}

func retention(del bool) appsv1.PersistentVolumeClaimRetentionPolicyType {
	if del {
		return appsv1.DeletePersistentVolumeClaimRetentionPolicyType
	}
	return appsv1.RetainPersistentVolumeClaimRetentionPolicyType
}

// applyStatefulSet writes what an update may change (replicas, template,
// retention policy) and the status; the rest is immutable.
func applyStatefulSet(s *api.StatefulSet, o *model.StatefulSet) {
	if replicasOf(s.Spec.Replicas) != o.Replicas {
		s.Spec.Replicas = ptr(i32(o.Replicas))
	}
	applyTemplate(&s.Spec.Template, o.Image, o.PodLabels, o.NodeSelector, o.Template)
	if cur := statefulSetToModel(s, model.Meta{}); cur.DeleteClaimsWhenDeleted != o.DeleteClaimsWhenDeleted || cur.DeleteClaimsWhenScaled != o.DeleteClaimsWhenScaled || s.Spec.PersistentVolumeClaimRetentionPolicy == nil {
		s.Spec.PersistentVolumeClaimRetentionPolicy = &appsv1.StatefulSetPersistentVolumeClaimRetentionPolicy{
			WhenDeleted: retention(o.DeleteClaimsWhenDeleted), WhenScaled: retention(o.DeleteClaimsWhenScaled)}
	}
	if s.Generation != o.Generation {
		s.Generation = o.Generation
	}
	st := &s.Status
	if st.ObservedGeneration != o.Status.ObservedGeneration {
		st.ObservedGeneration = o.Status.ObservedGeneration
	}
	setCount(&st.Replicas, o.Status.Replicas)
	setCount(&st.ReadyReplicas, o.Status.ReadyReplicas)
	setCount(&st.CurrentReplicas, o.Status.CurrentReplicas)
	setCount(&st.UpdatedReplicas, o.Status.UpdatedReplicas)
	setCount(&st.AvailableReplicas, o.Status.AvailableReplicas)
	st.CurrentRevision, st.UpdateRevision = o.Status.CurrentRevision, o.Status.UpdateRevision
}

func claimToModel(c *api.PersistentVolumeClaim, m model.Meta) *model.PersistentVolumeClaim {
	return &model.PersistentVolumeClaim{Meta: m}
}

// newClaim stamps a claim from the template of the set (template) whose
// name it starts with, as upstream's getPersistentVolumeClaims does.
func newClaim(o *model.PersistentVolumeClaim, template api.Object) (*api.PersistentVolumeClaim, error) {
	s, _ := template.(*api.StatefulSet)
	if s == nil {
		return nil, fmt.Errorf("%w: claim %s needs its StatefulSet", ErrMismatch, o.Name)
	}
	for _, t := range s.Spec.VolumeClaimTemplates {
		if ClaimOf(s, t.Name, o.Name) {
			c := &api.PersistentVolumeClaim{
				TypeMeta:   typeMeta(model.KindPersistentVolumeClaim),
				ObjectMeta: objectMeta(model.KindPersistentVolumeClaim, &o.Meta, template),
				Spec:       *t.Spec.DeepCopy(),
			}
			return c, nil
		}
	}
	return nil, fmt.Errorf("%w: claim %s is no claim of statefulset %s", ErrMismatch, o.Name, s.Name)
}

// ClaimOf reports whether claim is "<template>-<set>-<ordinal>" of set s.
func ClaimOf(s *api.StatefulSet, template, claim string) bool {
	if len(claim) <= len(template)+1 || claim[:len(template)+1] != template+"-" {
		return false
	}
	_, ok := model.StatefulSetOrdinal(s.Name, claim[len(template)+1:])
	return ok
}

// stampStatefulPod gives a set's pod its identity: hostname, subdomain,
// and its own claims in the volumes named for the claim templates.
func stampStatefulPod(p *api.Pod, o *model.Pod, s *api.StatefulSet) {
	p.Spec.Hostname, p.Spec.Subdomain = p.Name, s.Spec.ServiceName
	for i, claim := range o.Claims {
		if i >= len(s.Spec.VolumeClaimTemplates) {
			break
		}
		v := corev1.Volume{Name: s.Spec.VolumeClaimTemplates[i].Name, VolumeSource: corev1.VolumeSource{
			PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: claim}}}
		if j := slices.IndexFunc(p.Spec.Volumes, func(x corev1.Volume) bool { return x.Name == v.Name }); j >= 0 {
			p.Spec.Volumes[j] = v
		} else {
			p.Spec.Volumes = append(p.Spec.Volumes, v)
		}
	}
}

// claimsOf are the claims a pod mounts as a StatefulSet's pod does: the
// volumes whose claim is "<volume>-<pod>".
func claimsOf(p *api.Pod) []string {
	var out []string
	for _, v := range p.Spec.Volumes {
		if c := v.PersistentVolumeClaim; c != nil && c.ClaimName == v.Name+"-"+p.Name {
			out = append(out, c.ClaimName)
		}
	}
	return out
}
