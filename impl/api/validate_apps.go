package api

import (
	"fmt"

	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
)

func validateDeploymentSpec(e *errs, s *DeploymentSpec, p fieldPath) {
	if s.Replicas != nil {
		e.nonNegative(p.child("replicas"), int64(*s.Replicas))
	}
	validateWorkloadSelector(e, s.Selector, &s.Template, p)
	validateDeploymentStrategy(e, &s.Strategy, p.child("strategy"))
	if s.Paused {
		// Refused rather than ignored: the controllers (the model's) have
		// no pause, so a "paused" Deployment would roll out regardless.
		e.forbidden(p.child("paused"), "converge's deployment controller does not pause rollouts")
	}
	e.nonNegative(p.child("minReadySeconds"), int64(s.MinReadySeconds))
	if s.RevisionHistoryLimit != nil {
		e.nonNegative(p.child("revisionHistoryLimit"), int64(*s.RevisionHistoryLimit))
	}
	if s.ProgressDeadlineSeconds != nil {
		e.nonNegative(p.child("progressDeadlineSeconds"), int64(*s.ProgressDeadlineSeconds))
		if *s.ProgressDeadlineSeconds <= s.MinReadySeconds {
			e.invalid(p.child("progressDeadlineSeconds"), int64(*s.ProgressDeadlineSeconds), "must be greater than minReadySeconds")
		}
	}
}

func validateReplicaSetSpec(e *errs, s *ReplicaSetSpec, p fieldPath) {
	if s.Replicas != nil {
		e.nonNegative(p.child("replicas"), int64(*s.Replicas))
	}
	e.nonNegative(p.child("minReadySeconds"), int64(s.MinReadySeconds))
	validateWorkloadSelector(e, s.Selector, &s.Template, p)
}

// validateWorkloadSelector holds the rules Deployment and ReplicaSet share:
// a valid, non-empty selector that matches the template's labels, and a
// template whose pods restart Always.
func validateWorkloadSelector(e *errs, sel *LabelSelector, t *PodTemplateSpec, p fieldPath) {
	selOK := false
	if sel == nil {
		e.required(p.child("selector"), "")
	} else {
		before := len(e.list)
		validateLabelSelector(e, sel, p.child("selector"))
		if len(sel.MatchLabels) == 0 && len(sel.MatchExpressions) == 0 {
			e.invalid(p.child("selector"), sel, "empty selector is invalid for deployment")
		}
		selOK = len(e.list) == before
	}
	tp := p.child("template")
	if selOK && !SelectorMatches(sel, t.Labels) {
		e.invalid(tp.child("metadata", "labels"), t.Labels, "`selector` does not match template `labels`")
	}
	validatePodTemplate(e, t, tp)
	if t.Spec.RestartPolicy != "" && t.Spec.RestartPolicy != RestartPolicyAlways {
		notSupported(e, tp.child("spec", "restartPolicy"), string(t.Spec.RestartPolicy), []RestartPolicy{RestartPolicyAlways})
	}
	if t.Spec.ActiveDeadlineSeconds != nil {
		e.forbidden(tp.child("spec", "activeDeadlineSeconds"), "activeDeadlineSeconds in ReplicaSet is not Supported")
	}
}

// validatePodTemplate checks a template's labels and pod spec; templates
// carry no name or namespace of their own.
func validatePodTemplate(e *errs, t *PodTemplateSpec, p fieldPath) {
	mp := p.child("metadata")
	validateLabels(e, t.Labels, mp.child("labels"))
	validateAnnotations(e, t.Annotations, mp.child("annotations"))
	validatePodSpec(e, &t.Spec, p.child("spec"))
}

// validateLabelSelector is upstream's ValidateLabelSelector, with the
// matchLabels checked in key order (see inKeyOrder).
func validateLabelSelector(e *errs, s *LabelSelector, p fieldPath) {
	validateLabels(e, s.MatchLabels, p.child("matchLabels"))
	if len(s.MatchExpressions) > 0 {
		exprs := &LabelSelector{MatchExpressions: s.MatchExpressions}
		e.addList(metav1validation.ValidateLabelSelector(exprs, metav1validation.LabelSelectorValidationOptions{}, p.path()))
	}
}

func validateDeploymentStrategy(e *errs, s *DeploymentStrategy, p fieldPath) {
	switch s.Type {
	case RecreateDeploymentStrategyType:
		if s.RollingUpdate != nil {
			e.forbidden(p.child("rollingUpdate"), fmt.Sprintf("may not be specified when strategy `type` is '%s'", RecreateDeploymentStrategyType))
		}
	case RollingUpdateDeploymentStrategyType:
		if s.RollingUpdate == nil {
			e.required(p.child("rollingUpdate"), "this should be defaulted and never be nil")
			return
		}
		validateRollingUpdate(e, s.RollingUpdate, p.child("rollingUpdate"))
	default:
		notSupported(e, p, s, []DeploymentStrategyType{RecreateDeploymentStrategyType, RollingUpdateDeploymentStrategyType})
	}
}

func validateRollingUpdate(e *errs, r *RollingUpdateDeployment, p fieldPath) {
	validateIntOrPercent(e, r.MaxUnavailable, p.child("maxUnavailable"))
	validateIntOrPercent(e, r.MaxSurge, p.child("maxSurge"))
	if intOrPercentValue(r.MaxUnavailable) == 0 && intOrPercentValue(r.MaxSurge) == 0 {
		e.invalid(p.child("maxUnavailable"), valueOrZero(r.MaxUnavailable), "may not be 0 when `maxSurge` is 0")
	}
	if r.MaxUnavailable != nil {
		if pct, ok := percentOf(*r.MaxUnavailable); ok && pct > 100 {
			e.invalid(p.child("maxUnavailable"), *r.MaxUnavailable, "must not be greater than 100%")
		}
	}
}

func valueOrZero(v *IntOrString) IntOrString {
	if v == nil {
		return IntOrString{}
	}
	return *v
}

// validateIntOrPercent accepts a non-negative integer or "NN%".
func validateIntOrPercent(e *errs, v *IntOrString, p fieldPath) {
	if v == nil {
		return
	}
	switch v.Type {
	case StringValue:
		e.invalidEach(p, *v, validPercent(v.StrVal))
	case IntValue:
		e.nonNegative(p, int64(v.IntVal))
	default:
		e.invalid(p, *v, "must be an integer or percentage (e.g '5%')")
	}
}

// intOrPercentValue is the number in v, percent or not; unparseable
// values count as non-zero so they do not also trip the both-zero rule.
func intOrPercentValue(v *IntOrString) int64 {
	if v == nil {
		return 0
	}
	if v.Type == IntValue {
		return int64(v.IntVal)
	}
	if p, ok := percentOf(*v); ok {
		return int64(p)
	}
	return -1
}
