package api

import (
	"reflect"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Validation of the stored workload kinds, with Kubernetes' messages and
// field paths, for what makes `kubectl create` and `kubectl apply` of a
// typical manifest behave as on a real cluster: required fields, a
// selector that matches the template's labels, the restart policies each
// kind allows, claims' access modes and storage requests, and the fields
// updates may not change. Pod templates and selectors are checked by
// converge's pod and selector validation, on their JSON.

var (
	supportedAccessModes = []corev1.PersistentVolumeAccessMode{corev1.ReadOnlyMany, corev1.ReadWriteMany,
		corev1.ReadWriteOnce, corev1.ReadWriteOncePod}
	supportedVolumeModes = []corev1.PersistentVolumeMode{corev1.PersistentVolumeBlock, corev1.PersistentVolumeFilesystem}
	supportedPodPolicies = []appsv1.PodManagementPolicyType{appsv1.OrderedReadyPodManagement, appsv1.ParallelPodManagement}
	supportedJobRestart  = []corev1.RestartPolicy{corev1.RestartPolicyOnFailure, corev1.RestartPolicyNever}
)

// The unprefixed labels the job controller still sets beside
// batch.kubernetes.io's, as upstream's Job strategy does.
const (
	legacyControllerUIDLabel = "controller-uid"
	legacyJobNameLabel       = "job-name"
)

// validateWorkload checks a stored workload kind on create; false if obj
// is none.
func validateWorkload(e *errs, obj Object, km kindMeta) bool {
	switch o := obj.(type) {
	case *PersistentVolumeClaim:
		validateMeta(e, &o.ObjectMeta, km, apivalidation.NameIsDNSSubdomain)
		validateClaimSpec(e, &o.Spec, "spec")
	case *StatefulSet:
		validateMeta(e, &o.ObjectMeta, km, apivalidation.NameIsDNSLabel)
		s, p := &o.Spec, fieldPath("spec")
		if s.PodManagementPolicy != appsv1.OrderedReadyPodManagement && s.PodManagementPolicy != appsv1.ParallelPodManagement {
			notSupported(e, p.child("podManagementPolicy"), string(s.PodManagementPolicy), supportedPodPolicies)
		}
		if s.Replicas != nil {
			e.nonNegative(p.child("replicas"), int64(*s.Replicas))
		}
		e.nonNegative(p.child("minReadySeconds"), int64(s.MinReadySeconds))
		if u := s.UpdateStrategy.RollingUpdate; u != nil && u.Partition != nil {
			e.nonNegative(p.child("updateStrategy", "rollingUpdate", "partition"), int64(*u.Partition))
		}
		for i := range s.VolumeClaimTemplates {
			validateClaimSpec(e, &s.VolumeClaimTemplates[i].Spec, p.child("volumeClaimTemplates").index(i).child("spec"))
		}
		// Its pods mount the claims its templates make, as upstream's
		// validation counts them among the template's volumes.
		t := *s.Template.DeepCopy()
		for _, c := range s.VolumeClaimTemplates {
			t.Spec.Volumes = append(t.Spec.Volumes, corev1.Volume{Name: c.Name,
				VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: c.Name}}})
		}
		validateKubeWorkload(e, s.Selector, &t, p, "statefulset", true)
	case *DaemonSet:
		validateMeta(e, &o.ObjectMeta, km, apivalidation.NameIsDNSSubdomain)
		s, p := &o.Spec, fieldPath("spec")
		e.nonNegative(p.child("minReadySeconds"), int64(s.MinReadySeconds))
		validateKubeWorkload(e, s.Selector, &s.Template, p, "daemonset", true)
	case *Job:
		validateMeta(e, &o.ObjectMeta, km, apivalidation.NameIsDNSSubdomain)
		validateJob(e, o)
	default:
		return false
	}
	return true
}

func validateClaimSpec(e *errs, s *corev1.PersistentVolumeClaimSpec, p fieldPath) {
	if len(s.AccessModes) == 0 {
		e.required(p.child("accessModes"), "at least 1 access mode is required")
	}
	for _, m := range s.AccessModes {
		switch m {
		case corev1.ReadOnlyMany, corev1.ReadWriteMany, corev1.ReadWriteOnce, corev1.ReadWriteOncePod:
		default:
			notSupported(e, p.child("accessModes"), string(m), supportedAccessModes)
		}
	}
	storage, ok := s.Resources.Requests[corev1.ResourceStorage]
	if !ok {
		e.required(p.child("resources").key(string(corev1.ResourceStorage)), "")
	} else if storage.Sign() <= 0 {
		e.invalid(p.child("resources").key(string(corev1.ResourceStorage)), storage.String(), "must be greater than zero")
	}
	if c := s.StorageClassName; c != nil && *c != "" {
		e.invalidEach(p.child("storageClassName"), *c, dns1123Subdomain(*c))
	}
	if m := s.VolumeMode; m != nil && *m != corev1.PersistentVolumeBlock && *m != corev1.PersistentVolumeFilesystem {
		notSupported(e, p.child("volumeMode"), string(*m), supportedVolumeModes)
	}
}

// validateKubeWorkload holds what StatefulSets, DaemonSets and Jobs with
// a manual selector share with Deployments: a valid, non-empty selector
// matching the template's labels and a valid pod template; always says
// whether the pods must restart Always.
func validateKubeWorkload(e *errs, ksel *metav1.LabelSelector, kt *corev1.PodTemplateSpec, p fieldPath, kind string, always bool) {
	if ksel == nil {
		e.required(p.child("selector"), "")
	} else {
		before := len(e.list)
		validateLabelSelector(e, ksel, p.child("selector"))
		if len(ksel.MatchLabels) == 0 && len(ksel.MatchExpressions) == 0 {
			e.invalid(p.child("selector"), ksel, "empty selector is invalid for "+kind)
		}
		if len(e.list) == before && !SelectorMatches(ksel, kt.Labels) {
			e.invalid(p.child("template", "metadata", "labels"), kt.Labels, "`selector` does not match template `labels`")
		}
	}
	tp := p.child("template")
	validatePodTemplate(e, kt, tp)
	if always && kt.Spec.RestartPolicy != corev1.RestartPolicyAlways {
		notSupported(e, tp.child("spec", "restartPolicy"), string(kt.Spec.RestartPolicy), []corev1.RestartPolicy{corev1.RestartPolicyAlways})
	}
	if always && kt.Spec.ActiveDeadlineSeconds != nil {
		e.forbidden(tp.child("spec", "activeDeadlineSeconds"), "activeDeadlineSeconds in "+kind+" is not Supported")
	}
}

func validateJob(e *errs, j *Job) {
	s, p := &j.Spec, fieldPath("spec")
	for name, v := range map[string]*int32{"parallelism": s.Parallelism, "completions": s.Completions, "backoffLimit": s.BackoffLimit} {
		if v != nil {
			e.nonNegative(p.child(name), int64(*v))
		}
	}
	if s.ActiveDeadlineSeconds != nil && *s.ActiveDeadlineSeconds <= 0 {
		e.invalid(p.child("activeDeadlineSeconds"), *s.ActiveDeadlineSeconds, "must be greater than 0")
	}
	if s.CompletionMode != nil && *s.CompletionMode == batchv1.IndexedCompletion && s.Completions == nil {
		e.required(p.child("completions"), "when completion mode is Indexed")
	}
	if isTrue(s.ManualSelector) {
		validateKubeWorkload(e, s.Selector, &s.Template, p, "job", false)
	} else {
		if s.Selector != nil && !generatedSelector(j) {
			e.invalid(p.child("selector"), s.Selector, "`selector` not auto-generated")
		}
		validatePodTemplate(e, &s.Template, p.child("template"))
	}
	if rp := s.Template.Spec.RestartPolicy; rp != corev1.RestartPolicyOnFailure && rp != corev1.RestartPolicyNever {
		notSupported(e, p.child("template", "spec", "restartPolicy"), string(rp), supportedJobRestart)
	}
}

// generatedSelector: the Job's selector is the one its create generated,
// which matches its uid label and nothing else.
func generatedSelector(j *Job) bool {
	s := j.Spec.Selector
	return j.UID != "" && len(s.MatchExpressions) == 0 &&
		reflect.DeepEqual(s.MatchLabels, map[string]string{batchv1.ControllerUidLabel: string(j.UID)})
}

// validateWorkloadUpdate checks what a stored workload kind may not
// change, with Kubernetes' messages.
func validateWorkloadUpdate(e *errs, old, obj Object) {
	switch o := obj.(type) {
	case *PersistentVolumeClaim:
		was := old.(*PersistentVolumeClaim)
		a, b := o.Spec.DeepCopy(), was.Spec.DeepCopy()
		a.Resources.Requests, b.Resources.Requests = nil, nil
		if b.VolumeName == "" {
			a.VolumeName = "" // binding sets it once
		}
		a.VolumeAttributesClassName, b.VolumeAttributesClassName = nil, nil
		if !reflect.DeepEqual(a, b) {
			e.forbidden("spec", "spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims")
		}
	case *StatefulSet:
		was := old.(*StatefulSet)
		a, b := o.Spec.DeepCopy(), was.Spec.DeepCopy()
		for _, s := range []*appsv1.StatefulSetSpec{a, b} {
			s.Replicas, s.Ordinals, s.Template, s.UpdateStrategy = nil, nil, corev1.PodTemplateSpec{}, appsv1.StatefulSetUpdateStrategy{}
			s.RevisionHistoryLimit, s.PersistentVolumeClaimRetentionPolicy, s.MinReadySeconds = nil, nil, 0
		}
		if !reflect.DeepEqual(a, b) {
			e.forbidden("spec", "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden")
		}
	case *DaemonSet:
		immutable(e, fieldPath("spec").child("selector"), o.Spec.Selector, old.(*DaemonSet).Spec.Selector)
	case *Job:
		was := old.(*Job)
		immutable(e, fieldPath("spec").child("selector"), o.Spec.Selector, was.Spec.Selector)
		immutable(e, fieldPath("spec").child("completions"), o.Spec.Completions, was.Spec.Completions)
		if !reflect.DeepEqual(o.Spec.Template, was.Spec.Template) {
			immutable(e, fieldPath("spec").child("template"), o.Spec.Template, was.Spec.Template)
		}
	}
}

// prepareWorkloadForCreate is what upstream's strategies do on create
// once the object has its uid: status is the controllers' to write (a
// claim starts Pending), and a Job without a manual selector gets one
// generated from its uid, its pods labelled to match.
func prepareWorkloadForCreate(obj Object) {
	switch o := obj.(type) {
	case *PersistentVolumeClaim:
		o.Status = corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimPending}
	case *StatefulSet:
		o.Status = appsv1.StatefulSetStatus{}
	case *DaemonSet:
		o.Status = appsv1.DaemonSetStatus{}
	case *Job:
		o.Status = batchv1.JobStatus{}
		if isTrue(o.Spec.ManualSelector) {
			return
		}
		if o.Spec.Selector == nil {
			o.Spec.Selector = &metav1.LabelSelector{}
		}
		if o.Spec.Selector.MatchLabels == nil {
			o.Spec.Selector.MatchLabels = map[string]string{}
		}
		o.Spec.Selector.MatchLabels[batchv1.ControllerUidLabel] = string(o.UID)
		l := o.Spec.Template.Labels
		if l == nil {
			l = map[string]string{}
			o.Spec.Template.Labels = l
		}
		l[batchv1.ControllerUidLabel], l[legacyControllerUIDLabel] = string(o.UID), string(o.UID)
		l[batchv1.JobNameLabel], l[legacyJobNameLabel] = o.Name, o.Name
		if len(o.Labels) == 0 {
			o.Labels = make(map[string]string, len(l))
			for k, v := range l {
				o.Labels[k] = v
			}
		}
	}
}

// PrepareForCreate does what Kubernetes' strategies do to a new object of
// a stored kind once it has its uid (see prepareWorkloadForCreate).
func PrepareForCreate(obj Object) {
	if c, ok := obj.(*CustomResourceDefinition); ok {
		prepareCRDForCreate(c)
		return
	}
	prepareWorkloadForCreate(obj)
}
