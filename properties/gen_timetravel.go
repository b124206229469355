package properties

import (
	"slices"

	"github.com/converge-dev/converge/model"
)

// timeTraveling adds the time-travel faults (model/timetravel.go) of the
// components in who to what its source offers: a restart against a
// lagging apiserver is drawn only for the components meant to withstand
// it (ImplOptions.TimeTravel, LockstepOptions.TimeTravel), since upstream's
// replicaset controller, for one, creates its pods again after it.
type timeTraveling struct {
	ActionSource
	travels interface{ TimeTravels() []model.Action }
	who     []string
}

// withTimeTravel is src with the time-travel faults of who, or src itself
// when who is empty, so that the draws of a run without them are
// unchanged.
func withTimeTravel[S interface {
	ActionSource
	TimeTravels() []model.Action
}](src S, who []string) ActionSource {
	if len(who) == 0 {
		return src
	}
	return timeTraveling{ActionSource: src, travels: src, who: who}
}

func (s timeTraveling) EnabledFaults() []model.Action {
	out := s.ActionSource.EnabledFaults()
	for _, a := range s.travels.TimeTravels() {
		if slices.Contains(s.who, a.Who) {
			out = append(out, a)
		}
	}
	return out
}

// TimeTravelers are the built-in components that a restart against a
// lagging apiserver leaves correct: every one but the replicaset
// controller, which, like upstream's before consistent lists, creates its
// pods again when the old list does not show them (model/timetravel.go).
// Campaigns and the lockstep test draw time travel for these.
func TimeTravelers() []string {
	out := []string{model.DeploymentController, model.Scheduler, model.EndpointsController,
		model.NodeLifecycle, model.GarbageCollector, model.NamespaceController}
	for _, n := range NodeNames {
		out = append(out, model.KubeletName(n), model.ProxyName(n))
	}
	return out
}
