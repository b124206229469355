package api

import (
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
)

// Deployment is apps/v1 Deployment.
type Deployment struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty"`
	Spec       DeploymentSpec   `json:"spec,omitempty"`
	Status     DeploymentStatus `json:"status,omitempty"`
}

// DeploymentList is apps/v1 DeploymentList.
type DeploymentList struct {
	TypeMeta `json:",inline"`
	ListMeta `json:"metadata,omitempty"`
	Items    []Deployment `json:"items"`
}

// DeploymentSpec is the desired state of a deployment.
type DeploymentSpec struct {
	Replicas                *int32             `json:"replicas,omitempty"`
	Selector                *LabelSelector     `json:"selector"`
	Template                PodTemplateSpec    `json:"template"`
	Strategy                DeploymentStrategy `json:"strategy,omitempty"`
	MinReadySeconds         int32              `json:"minReadySeconds,omitempty"`
	RevisionHistoryLimit    *int32             `json:"revisionHistoryLimit,omitempty"`
	Paused                  bool               `json:"paused,omitempty"`
	ProgressDeadlineSeconds *int32             `json:"progressDeadlineSeconds,omitempty"`
}

// Deployment condition types.
const (
	DeploymentAvailable      = "Available"
	DeploymentProgressing    = "Progressing"
	DeploymentReplicaFailure = "ReplicaFailure"
)

// ReplicaSet is apps/v1 ReplicaSet.
type ReplicaSet struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty"`
	Spec       ReplicaSetSpec   `json:"spec,omitempty"`
	Status     ReplicaSetStatus `json:"status,omitempty"`
}

// ReplicaSetList is apps/v1 ReplicaSetList.
type ReplicaSetList struct {
	TypeMeta `json:",inline"`
	ListMeta `json:"metadata,omitempty"`
	Items    []ReplicaSet `json:"items"`
}

// ReplicaSetSpec is the desired state of a replica set.
type ReplicaSetSpec struct {
	Replicas        *int32          `json:"replicas,omitempty"`
	MinReadySeconds int32           `json:"minReadySeconds,omitempty"`
	Selector        *LabelSelector  `json:"selector"`
	Template        PodTemplateSpec `json:"template,omitempty"`
}

// Scale is autoscaling/v1 Scale, the body of the scale subresource of
// deployments and replicasets.
type Scale struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty"`
	Spec       ScaleSpec   `json:"spec,omitempty"`
	Status     ScaleStatus `json:"status,omitempty"`
}

// The parts of deployments, replica sets and scales are k8s.io/api's own
// types, but for the specs that hold a pod template.
type (
	DeploymentStrategy      = appsv1.DeploymentStrategy
	DeploymentStrategyType  = appsv1.DeploymentStrategyType
	RollingUpdateDeployment = appsv1.RollingUpdateDeployment
	DeploymentStatus        = appsv1.DeploymentStatus
	DeploymentCondition     = appsv1.DeploymentCondition
	ReplicaSetStatus        = appsv1.ReplicaSetStatus
	ReplicaSetCondition     = appsv1.ReplicaSetCondition
	ScaleSpec               = autoscalingv1.ScaleSpec
	ScaleStatus             = autoscalingv1.ScaleStatus
)

const (
	RecreateDeploymentStrategyType      = appsv1.RecreateDeploymentStrategyType
	RollingUpdateDeploymentStrategyType = appsv1.RollingUpdateDeploymentStrategyType
)
