package api

import (
	"encoding/json"

	corev1 "k8s.io/api/core/v1"
)

// TypeMeta names the schema of a serialized object.
type TypeMeta struct {
	Kind       string `json:"kind,omitempty"`
	APIVersion string `json:"apiVersion,omitempty"`
}

// GetTypeMeta lets generic code reach the type fields of any kind.
func (t *TypeMeta) GetTypeMeta() *TypeMeta { return t }

// ObjectMeta is the metadata every persisted object carries.
type ObjectMeta struct {
	Name                       string               `json:"name,omitempty"`
	GenerateName               string               `json:"generateName,omitempty"`
	Namespace                  string               `json:"namespace,omitempty"`
	UID                        string               `json:"uid,omitempty"`
	ResourceVersion            string               `json:"resourceVersion,omitempty"`
	Generation                 int64                `json:"generation,omitempty"`
	CreationTimestamp          Time                 `json:"creationTimestamp,omitempty"`
	DeletionTimestamp          *Time                `json:"deletionTimestamp,omitempty"`
	DeletionGracePeriodSeconds *int64               `json:"deletionGracePeriodSeconds,omitempty"`
	Labels                     map[string]string    `json:"labels,omitempty"`
	Annotations                map[string]string    `json:"annotations,omitempty"`
	OwnerReferences            []OwnerReference     `json:"ownerReferences,omitempty"`
	Finalizers                 []string             `json:"finalizers,omitempty"`
	ManagedFields              []ManagedFieldsEntry `json:"managedFields,omitempty"`
	// SelfLink is accepted from clients, as old manifests carry it, and
	// never stored or served, as kube-apiserver has done since 1.20.
	SelfLink string `json:"selfLink,omitempty"`
}

// GetObjectMeta lets generic code reach the metadata of any kind.
func (m *ObjectMeta) GetObjectMeta() *ObjectMeta { return m }

// OwnerReference points from a dependent to its owner; the garbage
// collector follows it.
type OwnerReference struct {
	APIVersion         string `json:"apiVersion"`
	Kind               string `json:"kind"`
	Name               string `json:"name"`
	UID                string `json:"uid"`
	Controller         *bool  `json:"controller,omitempty"`
	BlockOwnerDeletion *bool  `json:"blockOwnerDeletion,omitempty"`
}

// ManagedFieldsEntry records which manager owns which fields. FieldsV1 is
// kept raw: converge stores it but never interprets it.
type ManagedFieldsEntry struct {
	Manager     string          `json:"manager,omitempty"`
	Operation   string          `json:"operation,omitempty"`
	APIVersion  string          `json:"apiVersion,omitempty"`
	Time        *Time           `json:"time,omitempty"`
	FieldsType  string          `json:"fieldsType,omitempty"`
	FieldsV1    json.RawMessage `json:"fieldsV1,omitempty"`
	Subresource string          `json:"subresource,omitempty"`
}

// ListMeta is the metadata of a list response.
type ListMeta struct {
	SelfLink           string `json:"selfLink,omitempty"`
	ResourceVersion    string `json:"resourceVersion,omitempty"`
	Continue           string `json:"continue,omitempty"`
	RemainingItemCount *int64 `json:"remainingItemCount,omitempty"`
}

// GetListMeta lets generic code reach the metadata of any list.
func (m *ListMeta) GetListMeta() *ListMeta { return m }

// Object is implemented by every kind a resource stores (pointer receivers),
// so a store layer or an HTTP server can handle any kind.
type Object interface {
	GetTypeMeta() *TypeMeta
	GetObjectMeta() *ObjectMeta
}

// ListObject is implemented by every list kind.
type ListObject interface {
	GetTypeMeta() *TypeMeta
	GetListMeta() *ListMeta
	// GetItems returns pointers into the list's own slice: writes through
	// them change the list.
	GetItems() []Object
	// SetItems replaces the items; it fails if an item has another kind.
	SetItems(items []Object) error
}

// DeletionPropagation says what happens to dependents when an owner goes.
type DeletionPropagation string

const (
	DeletePropagationOrphan     DeletionPropagation = "Orphan"
	DeletePropagationBackground DeletionPropagation = "Background"
	DeletePropagationForeground DeletionPropagation = "Foreground"
)

// DeleteOptions is the optional body of a DELETE request.
type DeleteOptions struct {
	TypeMeta           `json:",inline"`
	GracePeriodSeconds *int64               `json:"gracePeriodSeconds,omitempty"`
	Preconditions      *Preconditions       `json:"preconditions,omitempty"`
	OrphanDependents   *bool                `json:"orphanDependents,omitempty"`
	PropagationPolicy  *DeletionPropagation `json:"propagationPolicy,omitempty"`
	DryRun             []string             `json:"dryRun,omitempty"`
}

// Preconditions must hold for a delete to proceed.
type Preconditions struct {
	UID             *string `json:"uid,omitempty"`
	ResourceVersion *string `json:"resourceVersion,omitempty"`
}

// EventType is the type of one watch event.
type EventType string

const (
	EventAdded    EventType = "ADDED"
	EventModified EventType = "MODIFIED"
	EventDeleted  EventType = "DELETED"
	EventBookmark EventType = "BOOKMARK"
	EventError    EventType = "ERROR"
)

// WatchEvent is one line of a watch stream. Object is the serialized object,
// or a Status for ERROR events.
type WatchEvent struct {
	Type   EventType       `json:"type"`
	Object json.RawMessage `json:"object"`
}

// ConditionStatus is the status of a condition.
type ConditionStatus = corev1.ConditionStatus

const (
	ConditionTrue    = corev1.ConditionTrue
	ConditionFalse   = corev1.ConditionFalse
	ConditionUnknown = corev1.ConditionUnknown
)

// ObjectReference names another object, as Endpoints and Binding do.
type ObjectReference = corev1.ObjectReference
