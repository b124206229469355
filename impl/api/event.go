package api

import corev1 "k8s.io/api/core/v1"

// Event is core/v1 Event: a report of something a component did to an
// object, as kubectl describe and kubectl get events show them.
type Event struct {
	TypeMeta       `json:",inline"`
	ObjectMeta     `json:"metadata"`
	InvolvedObject ObjectReference `json:"involvedObject"`
	Reason         string          `json:"reason,omitempty"`
	Message        string          `json:"message,omitempty"`
	Source         EventSource     `json:"source,omitempty"`
	FirstTimestamp Time            `json:"firstTimestamp,omitempty"`
	LastTimestamp  Time            `json:"lastTimestamp,omitempty"`
	Count          int32           `json:"count,omitempty"`
	// Type is Normal or Warning.
	Type                string           `json:"type,omitempty"`
	EventTime           MicroTime        `json:"eventTime,omitempty"`
	Series              *EventSeries     `json:"series,omitempty"`
	Action              string           `json:"action,omitempty"`
	Related             *ObjectReference `json:"related,omitempty"`
	ReportingController string           `json:"reportingComponent"`
	ReportingInstance   string           `json:"reportingInstance"`
}

// An Event's parts are k8s.io/api's own types.
type (
	EventSeries = corev1.EventSeries
	EventSource = corev1.EventSource
)

// EventList is core/v1 EventList.
type EventList struct {
	TypeMeta `json:",inline"`
	ListMeta `json:"metadata,omitempty"`
	Items    []Event `json:"items"`
}

// Event types.
const (
	EventTypeNormal  = "Normal"
	EventTypeWarning = "Warning"
)
