package api

import (
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
)

// Deployment is apps/v1 Deployment.
type Deployment = appsv1.Deployment

// DeploymentList is apps/v1 DeploymentList.
type DeploymentList = appsv1.DeploymentList

// DeploymentSpec is the desired state of a deployment.
type DeploymentSpec = appsv1.DeploymentSpec

// Deployment condition types.
const (
	DeploymentAvailable      = "Available"
	DeploymentProgressing    = "Progressing"
	DeploymentReplicaFailure = "ReplicaFailure"
)

// ReplicaSet is apps/v1 ReplicaSet.
type ReplicaSet = appsv1.ReplicaSet

// ReplicaSetList is apps/v1 ReplicaSetList.
type ReplicaSetList = appsv1.ReplicaSetList

// ReplicaSetSpec is the desired state of a replica set.
type ReplicaSetSpec = appsv1.ReplicaSetSpec

// Scale is autoscaling/v1 Scale, the body of the scale subresource of
// deployments and replicasets.
type Scale = autoscalingv1.Scale

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
