package properties

import (
	"maps"
	"slices"

	"github.com/converge-dev/converge/model"
)

// Observed is what the oracles read from a cluster besides its snapshot:
// the model and the stepped implementation both provide it.
type Observed interface {
	Components() []string
	Queue(component string) []string
	EnabledSteps() []model.Action
	EnabledFaults() []model.Action
	// Recovery lists the actions that end the faults in force: a held
	// component's release and a partitioned node's return. It is much
	// cheaper than EnabledFaults, which also lists every fault that could
	// start.
	Recovery() []model.Action
}

// caughtUp lists the components that have delivered every event and have
// no queued key: not held, not down, no relist or delivery pending. Only
// for those does a component's output have to match its input.
func caughtUp(o Observed) map[string]bool {
	busy := map[string]bool{}
	for _, a := range o.EnabledSteps() {
		if a.Op == model.OpDeliver || a.Op == model.OpRelist {
			busy[a.Who] = true
		}
	}
	for _, a := range o.Recovery() {
		switch a.Op {
		case model.OpRelease:
			busy[a.Who] = true
		case model.OpNodeUp: // partitioned: its kubelet and kube-proxy are down
			busy[model.KubeletName(a.Who)], busy[model.ProxyName(a.Who)] = true, true
		}
	}
	// A RequeueAfter timer is work owed (the stepped implementation has
	// timers; the model has none).
	timers, _ := o.(interface{ Pending(string) bool })
	out := map[string]bool{}
	for _, n := range o.Components() {
		if !busy[n] && len(o.Queue(n)) == 0 && (timers == nil || !timers.Pending(n)) {
			out[n] = true
		}
	}
	// A built-in whose decisions a user's test turned off (cluster.Disabled)
	// is caught up only once the user's components that may do its work
	// are: its own idle queue says nothing of that work. With none, its
	// check stays as it is, and fails: nobody does the work.
	if standIns, ok := o.(interface{ StandIns(string) ([]string, bool) }); ok {
		for n := range out {
			names, _ := standIns.StandIns(n)
			for _, s := range names {
				out[n] = out[n] && out[s]
			}
		}
	}
	return out
}

// CaughtUp is the caught-up consistency oracle: a component that has seen
// every event and has nothing queued has no excuse for outputs that do not
// match its inputs. A ReplicaSet then has exactly spec.replicas live,
// non-terminating pods; Endpoints list exactly the ready, non-terminating
// pods; a node's kube-proxy rules match the Endpoints. Eventual checks at
// quiescence miss a controller that is wrong only in between (it counts
// terminating pods, it keeps them in Endpoints); this one does not.
func CaughtUp(o Observed, s *model.Snapshot) error {
	up := caughtUp(o)
	if up[model.ReplicaSetController] {
		if err := replicaSetsCaughtUp(s); err != nil {
			return err
		}
	}
	if up[model.EndpointsController] {
		if err := endpointsCaughtUp(s); err != nil {
			return err
		}
	}
	for _, n := range o.Components() {
		if node := model.NodeOf(n); node != "" && n == model.ProxyName(node) && up[n] {
			if err := proxyCaughtUp(s, node); err != nil {
				return err
			}
		}
	}
	return nil
}

func caughtUpViolation(format string, args ...any) error {
	return violationf("caught-up consistency", format, args...)
}

func replicaSetsCaughtUp(s *model.Snapshot) error {
	live := map[int64]int{}
	for _, o := range s.List(model.KindPod) {
		p := o.(*model.Pod)
		if p.Deleting || p.Owner.Kind != model.KindReplicaSet || p.Owner.UID == 0 {
			continue
		}
		rs, _ := s.Objects[model.OwnerRef(&p.Meta)].(*model.ReplicaSet)
		if rs != nil && rs.UID == p.Owner.UID && model.Matches(rs.PodLabels, p.Labels) {
			live[rs.UID]++
		}
	}
	for _, o := range s.List(model.KindReplicaSet) {
		rs := o.(*model.ReplicaSet)
		if !rs.Deleting && live[rs.UID] != rs.Replicas {
			return caughtUpViolation("the replicaset controller is caught up, but replicaset %s has %d live non-terminating pods, spec.replicas %d", rs.Name, live[rs.UID], rs.Replicas)
		}
	}
	return nil
}

func endpointsCaughtUp(s *model.Snapshot) error {
	for _, o := range s.List(model.KindService) {
		svc := o.(*model.Service)
		if !model.EndpointsManaged(svc) {
			continue // its user's to write, as upstream's controller leaves them
		}
		want, ports := model.EndpointsFor(svc, s.List(model.KindPod))
		ep, _ := s.Objects[model.Ref{Kind: model.KindEndpoints, Namespace: svc.Namespace, Name: svc.Name}].(*model.Endpoints)
		if ep == nil {
			return caughtUpViolation("the endpoints controller is caught up, but service %s has no Endpoints", svc.Name)
		}
		if !slices.Equal(ep.Addresses, want) || !slices.Equal(ep.Ports, ports) {
			return caughtUpViolation("the endpoints controller is caught up, but endpoints/%s list %v on %v, not the ready non-terminating pods %v on %v",
				svc.Name, ep.Addresses, ep.Ports, want, ports)
		}
	}
	for _, o := range s.List(model.KindEndpoints) {
		if s.Objects[model.Ref{Kind: model.KindService, Namespace: model.MetaOf(o).Namespace, Name: model.MetaOf(o).Name}] == nil {
			return caughtUpViolation("the endpoints controller is caught up, but endpoints/%s outlive their Service", model.MetaOf(o).Name)
		}
	}
	return nil
}

func proxyCaughtUp(s *model.Snapshot, node string) error {
	want := map[string]model.Rule{}
	for _, o := range s.List(model.KindService) {
		svc := o.(*model.Service)
		ep, _ := s.Objects[model.Ref{Kind: model.KindEndpoints, Namespace: svc.Namespace, Name: svc.Name}].(*model.Endpoints)
		want[model.KeyOf(svc)] = model.RuleFor(svc, ep)
	}
	same := func(a, b model.Rule) bool { return a.Port == b.Port && slices.Equal(a.Backends, b.Backends) }
	if !maps.EqualFunc(s.Rules[node], want, same) {
		return caughtUpViolation("%s is caught up, but its rules %v do not match the Endpoints %v", model.ProxyName(node), s.Rules[node], want)
	}
	return nil
}
