package api

import (
	"slices"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/api/validation/path"
)

// Defaults and validation of the stored kinds operators own (stored_owned.go):
// upstream's SetDefaults_* for them, and the checks their clients rely on.

// defaultOwned fills what Kubernetes fills; false if obj is none of these.
func defaultOwned(obj Object) bool {
	switch o := obj.(type) {
	case *CronJob:
		s := &o.Spec
		if s.ConcurrencyPolicy == "" {
			s.ConcurrencyPolicy = batchv1.AllowConcurrent
		}
		if s.Suspend == nil {
			s.Suspend = ptr(false)
		}
		if s.SuccessfulJobsHistoryLimit == nil {
			s.SuccessfulJobsHistoryLimit = ptr[int32](3)
		}
		if s.FailedJobsHistoryLimit == nil {
			s.FailedJobsHistoryLimit = ptr[int32](1)
		}
		defaultKubePodSpec(&s.JobTemplate.Spec.Template.Spec)
	case *HorizontalPodAutoscaler:
		// Upstream's: one replica at least, and CPU at 80% when no
		// metric is named.
		if o.Spec.MinReplicas == nil {
			o.Spec.MinReplicas = ptr[int32](1)
		}
		if len(o.Spec.Metrics) == 0 {
			o.Spec.Metrics = []autoscalingv2.MetricSpec{{Type: autoscalingv2.ResourceMetricSourceType,
				Resource: &autoscalingv2.ResourceMetricSource{Name: corev1.ResourceCPU,
					Target: autoscalingv2.MetricTarget{Type: autoscalingv2.UtilizationMetricType, AverageUtilization: ptr[int32](80)}}}}
		}
	case *NetworkPolicy:
		s := &o.Spec
		for i := range s.Ingress {
			defaultPolicyPorts(s.Ingress[i].Ports)
		}
		for i := range s.Egress {
			defaultPolicyPorts(s.Egress[i].Ports)
		}
		if len(s.PolicyTypes) == 0 {
			s.PolicyTypes = []networkingv1.PolicyType{networkingv1.PolicyTypeIngress}
			if len(s.Egress) > 0 {
				s.PolicyTypes = append(s.PolicyTypes, networkingv1.PolicyTypeEgress)
			}
		}
	case *RoleBinding:
		defaultBinding(&o.RoleRef, o.Subjects)
	case *ClusterRoleBinding:
		defaultBinding(&o.RoleRef, o.Subjects)
	case *Ingress, *PodDisruptionBudget, *Role, *ClusterRole:
	default:
		return false
	}
	return true
}

func defaultPolicyPorts(ports []networkingv1.NetworkPolicyPort) {
	for i := range ports {
		if ports[i].Protocol == nil {
			ports[i].Protocol = ptr(corev1.ProtocolTCP)
		}
	}
}

// defaultBinding names the RBAC group where a binding leaves it out: in its
// role reference, and in its User and Group subjects.
func defaultBinding(ref *rbacv1.RoleRef, subjects []rbacv1.Subject) {
	if ref.APIGroup == "" {
		ref.APIGroup = RBACGroup
	}
	for i := range subjects {
		if s := &subjects[i]; s.APIGroup == "" && (s.Kind == rbacv1.UserKind || s.Kind == rbacv1.GroupKind) {
			s.APIGroup = RBACGroup
		}
	}
}

// rbacName is upstream's rule for RBAC names: any path segment.
func rbacName(name string, prefix bool) []string { return path.IsValidPathSegmentName(name) }

// validateOwned checks one of these kinds on create; false if obj is none.
func validateOwned(e *errs, obj Object, km kindMeta) bool {
	switch o := obj.(type) {
	case *CronJob:
		validateMeta(e, &o.ObjectMeta, km, apivalidation.NameIsDNSSubdomain)
		// Its Jobs are named after it with an 11-character suffix.
		if len(o.Name) > 52 {
			e.invalid("metadata.name", o.Name, "must be no more than 52 characters")
		}
		if o.Spec.Schedule == "" {
			e.required("spec.schedule", "")
		}
		switch o.Spec.ConcurrencyPolicy {
		case batchv1.AllowConcurrent, batchv1.ForbidConcurrent, batchv1.ReplaceConcurrent:
		default:
			notSupported(e, "spec.concurrencyPolicy", string(o.Spec.ConcurrencyPolicy),
				[]batchv1.ConcurrencyPolicy{batchv1.AllowConcurrent, batchv1.ForbidConcurrent, batchv1.ReplaceConcurrent})
		}
	case *HorizontalPodAutoscaler:
		validateMeta(e, &o.ObjectMeta, km, apivalidation.NameIsDNSSubdomain)
		if o.Spec.MinReplicas != nil && *o.Spec.MinReplicas < 1 {
			e.invalid("spec.minReplicas", *o.Spec.MinReplicas, "must be greater than or equal to 1")
		}
		if o.Spec.MaxReplicas < 1 {
			e.invalid("spec.maxReplicas", o.Spec.MaxReplicas, "must be greater than 0")
		}
		if o.Spec.MinReplicas != nil && o.Spec.MaxReplicas < *o.Spec.MinReplicas {
			e.invalid("spec.maxReplicas", o.Spec.MaxReplicas, "must be greater than or equal to `minReplicas`")
		}
		if o.Spec.ScaleTargetRef.Kind == "" {
			e.required("spec.scaleTargetRef.kind", "")
		}
		if o.Spec.ScaleTargetRef.Name == "" {
			e.required("spec.scaleTargetRef.name", "")
		}
	case *Ingress:
		validateMeta(e, &o.ObjectMeta, km, apivalidation.NameIsDNSSubdomain)
		for i, rule := range o.Spec.Rules {
			if rule.HTTP == nil {
				continue
			}
			for j, p := range rule.HTTP.Paths {
				if p.PathType == nil {
					e.required(fieldPath("spec.rules").index(i).child("http", "paths").index(j).child("pathType"), "pathType must be specified")
				}
			}
		}
	case *NetworkPolicy:
		validateMeta(e, &o.ObjectMeta, km, apivalidation.NameIsDNSSubdomain)
	case *PodDisruptionBudget:
		validateMeta(e, &o.ObjectMeta, km, apivalidation.NameIsDNSSubdomain)
		if o.Spec.MinAvailable != nil && o.Spec.MaxUnavailable != nil {
			e.invalid("spec", o.Spec, "minAvailable and maxUnavailable cannot be both set")
		}
	case *Role:
		validateMeta(e, &o.ObjectMeta, km, rbacName)
	case *ClusterRole:
		validateMeta(e, &o.ObjectMeta, km, rbacName)
	case *RoleBinding:
		validateMeta(e, &o.ObjectMeta, km, rbacName)
		validateRoleRef(e, o.RoleRef, "Role", "ClusterRole")
	case *ClusterRoleBinding:
		validateMeta(e, &o.ObjectMeta, km, rbacName)
		validateRoleRef(e, o.RoleRef, "ClusterRole")
	default:
		return false
	}
	return true
}

func validateRoleRef(e *errs, ref rbacv1.RoleRef, kinds ...string) {
	p := fieldPath("roleRef")
	if ref.APIGroup != RBACGroup {
		notSupported(e, p.child("apiGroup"), ref.APIGroup, []string{RBACGroup})
	}
	if !slices.Contains(kinds, ref.Kind) {
		notSupported(e, p.child("kind"), ref.Kind, kinds)
	}
	if ref.Name == "" {
		e.required(p.child("name"), "")
	} else {
		e.invalidEach(p.child("name"), ref.Name, path.IsValidPathSegmentName(ref.Name))
	}
}

// validateOwnedUpdate: a binding's role reference is fixed, as upstream's.
func validateOwnedUpdate(e *errs, old, obj Object) {
	var was, now rbacv1.RoleRef
	switch o := obj.(type) {
	case *RoleBinding:
		was, now = old.(*RoleBinding).RoleRef, o.RoleRef
	case *ClusterRoleBinding:
		was, now = old.(*ClusterRoleBinding).RoleRef, o.RoleRef
	default:
		return
	}
	if was != now {
		e.invalid("roleRef", now, "cannot change roleRef")
	}
}
