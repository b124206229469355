package api

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
)

// Metadata is apimachinery's own.
type (
	TypeMeta           = metav1.TypeMeta
	ObjectMeta         = metav1.ObjectMeta
	ListMeta           = metav1.ListMeta
	OwnerReference     = metav1.OwnerReference
	ManagedFieldsEntry = metav1.ManagedFieldsEntry
)

// Object is implemented by every kind a resource stores (pointer
// receivers), as it is by k8s.io/api's kinds, so a store layer or an HTTP
// server can handle any kind.
type Object interface {
	GetObjectKind() schema.ObjectKind
	GetObjectMeta() metav1.Object
}

// Meta is o's metadata, to read and write in place.
func Meta(o Object) *ObjectMeta { return o.GetObjectMeta().(*ObjectMeta) }

// TypeOf is the kind and apiVersion of o, an object or a list, to read
// and write in place.
func TypeOf(o interface{ GetObjectKind() schema.ObjectKind }) *TypeMeta {
	return o.GetObjectKind().(*TypeMeta)
}

// ListObject is implemented by every list kind; Items and SetItems reach
// its items.
type ListObject interface {
	GetObjectKind() schema.ObjectKind
	GetListMeta() metav1.ListInterface
}

// ListMetaOf is l's metadata, to read and write in place.
func ListMetaOf(l ListObject) *ListMeta { return l.GetListMeta().(*ListMeta) }

// Deletion's options are apimachinery's own.
type (
	DeleteOptions       = metav1.DeleteOptions
	Preconditions       = metav1.Preconditions
	DeletionPropagation = metav1.DeletionPropagation
)

const (
	DeletePropagationOrphan     = metav1.DeletePropagationOrphan
	DeletePropagationBackground = metav1.DeletePropagationBackground
	DeletePropagationForeground = metav1.DeletePropagationForeground
)

// EventType is the type of one watch event: apimachinery's.
type EventType = watch.EventType

const (
	EventAdded    = watch.Added
	EventModified = watch.Modified
	EventDeleted  = watch.Deleted
	EventBookmark = watch.Bookmark
	EventError    = watch.Error
)

// WatchEvent is one line of a watch stream, apimachinery's: its object is
// the serialized object, or a Status for ERROR events.
type WatchEvent = metav1.WatchEvent

// ConditionStatus is the status of a condition.
type ConditionStatus = corev1.ConditionStatus

const (
	ConditionTrue    = corev1.ConditionTrue
	ConditionFalse   = corev1.ConditionFalse
	ConditionUnknown = corev1.ConditionUnknown
)

// ObjectReference names another object, as Endpoints and Binding do.
type ObjectReference = corev1.ObjectReference
