package api

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// The label selector types are k8s.io/apimachinery's.
type (
	LabelSelector            = metav1.LabelSelector
	LabelSelectorRequirement = metav1.LabelSelectorRequirement
	LabelSelectorOperator    = metav1.LabelSelectorOperator
)

const (
	LabelSelectorOpIn           = metav1.LabelSelectorOpIn
	LabelSelectorOpNotIn        = metav1.LabelSelectorOpNotIn
	LabelSelectorOpExists       = metav1.LabelSelectorOpExists
	LabelSelectorOpDoesNotExist = metav1.LabelSelectorOpDoesNotExist
)

// SelectorMatches reports whether s selects an object with these labels,
// as Kubernetes reads a workload's selector (metav1.LabelSelectorAsSelector):
// a nil selector selects nothing, an empty one everything, and one that
// does not convert (an unknown operator, which validation refuses)
// nothing.
func SelectorMatches(s *LabelSelector, l map[string]string) bool {
	sel, err := metav1.LabelSelectorAsSelector(s)
	return err == nil && sel.Matches(labels.Set(l))
}

// SelectorString is s in the query syntax ("app=web,tier in (a,b)"), as
// Kubernetes prints it in a Scale's status.selector and kubectl's SELECTOR
// column; "" for nil or a selector that does not convert.
func SelectorString(s *LabelSelector) string {
	sel, err := metav1.LabelSelectorAsSelector(s)
	if err != nil {
		return ""
	}
	return sel.String()
}
