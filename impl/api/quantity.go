package api

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// Quantity is k8s.io/apimachinery's resource quantity ("100m", "128Mi").
// It serializes in its canonical form, as the real apiserver serves it:
// "0.5" comes back "500m", "1000" comes back "1k".
type Quantity = resource.Quantity

// ResourceList is k8s.io/api's: a resource name ("cpu", "memory") to a
// quantity. A quantity may be written as a string or a bare number
// (YAML `cpu: 1`); one that does not parse fails the decode.
type ResourceList = corev1.ResourceList
