package project

import (
	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/model"
	appsv1 "k8s.io/api/apps/v1"
)

// Upstream's reasons and messages for a Deployment's conditions.
const (
	reasonMinimumAvailable   = "MinimumReplicasAvailable"
	reasonMinimumUnavailable = "MinimumReplicasUnavailable"
	reasonNewRSAvailable     = "NewReplicaSetAvailable"
	reasonRSUpdated          = "ReplicaSetUpdated"
)

// setDeploymentConditions derives the Available and Progressing conditions
// from the model's status, as the deployment controller reports them, so
// that `kubectl wait --for=condition=Available` and `kubectl describe`
// work. The model has no conditions of its own: they are a function of
// the counts, so both drivers agree on them. Nothing is set before the
// controller has observed the Deployment. Times stay unset: the
// projection reads no clock.
func setDeploymentConditions(st *api.DeploymentStatus, o *model.Deployment) {
	if o.ObservedGeneration == 0 {
		return
	}
	_, maxUnavailable := model.ResolveSurge(o.Replicas, o.MaxSurge, o.MaxUnavailable)
	s := o.Status
	if s.AvailableReplicas >= o.Replicas-maxUnavailable {
		setDeploymentCondition(st, api.DeploymentAvailable, api.ConditionTrue, reasonMinimumAvailable, "Deployment has minimum availability.")
	} else {
		setDeploymentCondition(st, api.DeploymentAvailable, api.ConditionFalse, reasonMinimumUnavailable, "Deployment does not have minimum availability.")
	}
	complete := o.ObservedGeneration >= o.Generation && s.UpdatedReplicas == o.Replicas &&
		s.Replicas == o.Replicas && s.AvailableReplicas == o.Replicas
	if complete {
		setDeploymentCondition(st, api.DeploymentProgressing, api.ConditionTrue, reasonNewRSAvailable, "Deployment has successfully progressed.")
	} else {
		setDeploymentCondition(st, api.DeploymentProgressing, api.ConditionTrue, reasonRSUpdated, "Deployment is progressing.")
	}
}

func setDeploymentCondition(st *api.DeploymentStatus, typ appsv1.DeploymentConditionType, status api.ConditionStatus, reason, message string) {
	for i := range st.Conditions {
		if c := &st.Conditions[i]; c.Type == typ {
			if c.Status != status || c.Reason != reason { // else keep its message
				c.Status, c.Reason, c.Message = status, reason, message
			}
			return
		}
	}
	st.Conditions = append(st.Conditions, api.DeploymentCondition{Type: typ, Status: status, Reason: reason, Message: message})
}
