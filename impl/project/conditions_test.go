package project

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/model"
)

func TestDeploymentConditionsFollowTheCounts(t *testing.T) {
	d := &model.Deployment{Replicas: 4, Generation: 2, ObservedGeneration: 2,
		MaxSurge: defaultStrategy, MaxUnavailable: defaultStrategy} // 25% of 4: one may be unavailable
	conditions := func(s model.DeploymentStatus) map[string]string {
		d.Status = s
		var st api.DeploymentStatus
		setDeploymentConditions(&st, d)
		out := map[string]string{}
		for _, c := range st.Conditions {
			out[string(c.Type)] = string(c.Status) + "/" + c.Reason
		}
		return out
	}
	require.Equal(t, map[string]string{"Available": "False/MinimumReplicasUnavailable", "Progressing": "True/ReplicaSetUpdated"},
		conditions(model.DeploymentStatus{Replicas: 4, UpdatedReplicas: 4, AvailableReplicas: 2}))
	require.Equal(t, map[string]string{"Available": "True/MinimumReplicasAvailable", "Progressing": "True/ReplicaSetUpdated"},
		conditions(model.DeploymentStatus{Replicas: 5, UpdatedReplicas: 2, AvailableReplicas: 3}))
	require.Equal(t, map[string]string{"Available": "True/MinimumReplicasAvailable", "Progressing": "True/NewReplicaSetAvailable"},
		conditions(model.DeploymentStatus{Replicas: 4, UpdatedReplicas: 4, ReadyReplicas: 4, AvailableReplicas: 4}))

	d.Generation = 3 // a new spec not yet observed is still progressing
	require.Equal(t, "True/ReplicaSetUpdated", conditions(model.DeploymentStatus{Replicas: 4, UpdatedReplicas: 4, AvailableReplicas: 4})["Progressing"])

	d.ObservedGeneration = 0 // never synced: no conditions yet
	require.Empty(t, conditions(model.DeploymentStatus{}))
}
