package api

import corev1 "k8s.io/api/core/v1"

// Event is core/v1 Event: a report of something a component did to an
// object, as kubectl describe and kubectl get events show them.
type Event = corev1.Event

// An Event's parts are k8s.io/api's own types.
type (
	EventSeries = corev1.EventSeries
	EventSource = corev1.EventSource
)

// EventList is core/v1 EventList.
type EventList = corev1.EventList

// Event types.
const (
	EventTypeNormal  = "Normal"
	EventTypeWarning = "Warning"
)
