package cluster

import (
	"testing"

	"github.com/converge-dev/converge/impl/api"
)

// The kubelet's additions fill what is missing and keep what is there.
func TestKubeletStatusFillsTimesAndConditions(t *testing.T) {
	earlier, now := api.Unix(100), api.Unix(200)
	p := &api.Pod{Status: api.PodStatus{
		Conditions: []api.PodCondition{{Type: "PodScheduled", Status: api.ConditionTrue, LastTransitionTime: earlier},
			{Type: "Ready", Status: api.ConditionTrue}},
		ContainerStatuses: []api.ContainerStatus{{Name: "c", State: api.ContainerState{Running: &api.ContainerStateRunning{}}}},
	}}
	kubeletStatus(p, now)
	s := p.Status
	if s.StartTime == nil || !s.StartTime.Equal(&now) {
		t.Fatalf("startTime %v", s.StartTime)
	}
	want := map[string]api.Time{"PodScheduled": earlier, "Ready": now, "PodReadyToStartContainers": now, "Initialized": now}
	if len(s.Conditions) != len(want) {
		t.Fatalf("conditions %+v", s.Conditions)
	}
	for _, c := range s.Conditions {
		if at, ok := want[string(c.Type)]; !ok || !c.LastTransitionTime.Equal(&at) || c.Status != api.ConditionTrue {
			t.Errorf("condition %+v", c)
		}
	}
	if !s.ContainerStatuses[0].State.Running.StartedAt.Equal(&now) {
		t.Fatalf("startedAt %v", s.ContainerStatuses[0].State.Running.StartedAt)
	}
	later := api.Unix(300)
	kubeletStatus(p, later)
	if !p.Status.StartTime.Equal(&now) || len(p.Status.Conditions) != len(want) || !p.Status.ContainerStatuses[0].State.Running.StartedAt.Equal(&now) {
		t.Fatalf("a second status moved what was set: %+v", p.Status)
	}
}
