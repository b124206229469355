package model

import (
	"errors"
	"fmt"
	"maps"
	"slices"
)

// ErrNotConverged wraps every reason Converged gives.
var ErrNotConverged = errors.New("model: not converged")

// Recovery lists the actions that end every fault: held events are
// released and partitioned nodes come back. Broken watches heal by
// themselves on the next delivery.
func (st *State) Recovery() []Action {
	var out []Action
	for _, n := range st.names {
		if st.comps[n].held {
			out = append(out, Action{Op: OpRelease, Who: n})
		}
	}
	for _, o := range st.Objects(KindNode) {
		if a := (Action{Op: OpNodeUp, Who: o.meta().Name}); st.enabled(a) {
			out = append(out, a)
		}
	}
	// Failing probes pass again and full nodes free (world_cpu.go);
	// failing images stay failing (world.go).
	return append(append(out, ProbeRecovery(st.Containers(""))...), CPURecovery(st.CPUFullNodes())...)
}

// NextQuiesceStep picks the next step of a fair schedule that delivers
// every event before any reconcile, then reconciles the first fresh key of
// the first component with work, then sends due heartbeats, then retries. The schedule
// depends only on the state, so a model and an implementation in lockstep
// follow the same one.
func (st *State) NextQuiesceStep() (Action, bool) {
	for ; st.undelivered < len(st.names); st.undelivered++ {
		if d, ok := st.firstDelivery(st.names[st.undelivered]); ok {
			return d, true
		}
	}
	// Fresh work first, then due heartbeats, then failed keys (their
	// retry waits for others to make progress, as a rate limiter would).
	for _, retries := range []bool{false, true} {
		names := st.names
		if retries {
			names = RetryOrder(st.names, st.lastRetry)
		}
		for _, n := range names {
			c := st.comps[n]
			if c.down {
				continue
			}
			for _, k := range c.queue {
				if rev, idle := c.idle[k]; retries && idle && rev == st.store.rev {
					continue // a poll that would find the store as it left it
				}
				if c.retry[k] == retries {
					return Action{Op: OpReconcile, Who: n, Key: k}, true
				}
			}
		}
		if hb := st.EnabledHeartbeats(); !retries && len(hb) > 0 {
			return hb[0], true
		}
	}
	return Action{}, false
}

// RetryOrder is the order in which the fair schedule offers failed keys:
// the components after last (the one whose failed key was retried last),
// then the rest, so that one component's key that keeps failing, waiting
// for another's, cannot starve the other's retry.
func RetryOrder(names []string, last string) []string {
	i := 0 // names are sorted: start at the first after last, else at the top
	for i < len(names) && names[i] <= last {
		i++
	}
	if i == len(names) {
		i = 0
	}
	return append(append(make([]string, 0, len(names)), names[i:]...), names[:i]...)
}

// EnabledHeartbeats lists the heartbeats that are due.
func (st *State) EnabledHeartbeats() []Action {
	var out []Action
	for _, o := range st.Objects(KindNode) {
		if a := (Action{Op: OpHeartbeat, Who: o.meta().Name}); st.enabled(a) {
			out = append(out, a)
		}
	}
	return out
}

// Quiesce runs NextQuiesceStep until nothing is left to do, at most max
// steps. It returns the actions it took; the error says if the bound was hit.
func (st *State) Quiesce(max int) ([]Action, error) {
	var done []Action
	for len(done) < max {
		a, ok := st.NextQuiesceStep()
		if !ok {
			return done, nil
		}
		st.Step(a)
		done = append(done, a)
	}
	return done, fmt.Errorf("%w: still busy after %d quiesce steps", ErrNotConverged, max)
}

func notConverged(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrNotConverged, fmt.Sprintf(format, args...))
}

// Converged checks the end state once faults have stopped and the cluster
// has quiesced: every Deployment runs exactly spec.replicas ready pods of
// its current template on Ready nodes and says so in its status, old
// ReplicaSets are at zero, Endpoints and every node's rules match the ready
// pods, and nothing is orphaned or terminating, but for objects a user's
// finalizer holds: nothing in the control plane can let those go. A failing
// image stays failing (world.go), and one the kubelet cannot parse never
// runs (image_name.go): a pod of either that does not run waits in
// ImagePullBackOff or InvalidImageName, and a Deployment whose template
// names one (its rollout stuck, as upstream's is) reports its pods as they
// are.
func Converged(s *Snapshot) error {
	live := func(m *Meta) bool {
		cur := s.Objects[OwnerRef(m)]
		return cur != nil && cur.meta().UID == m.Owner.UID
	}
	held := heldByUsers(s.Objects)
	for _, o := range s.Objects {
		m := o.meta()
		if ns := m.Namespace; ns != "" && ns != DefaultNamespace && s.Objects[Ref{Kind: KindNamespace, Name: ns}] == nil {
			return notConverged("%s is left in namespace %s, which is gone", RefOf(o), ns)
		}
		if m.Deleting && !held[m.UID] && !(o.Kind() == KindNamespace && namespaceHeld(s.Objects, m.Name, held)) {
			return notConverged("%s is still terminating", RefOf(o))
		}
		if m.Owner.UID != 0 && !live(m) && !held[m.UID] {
			return notConverged("%s is an orphan", RefOf(o))
		}
		if n, _ := o.(*Node); n != nil && !n.Ready {
			return notConverged("node %s is not Ready", n.Name)
		}
	}
	failing := neverPulls(s)
	running := map[int64]Container{}
	for _, c := range s.Containers {
		p, _ := s.Objects[RefTo(KindPod, c.Pod)].(*Pod)
		if p == nil || p.UID != c.PodUID || p.NodeName != c.Node || (!c.Running && !failing(p.Image)) {
			// An exited container of a live pod stays only while its
			// restart waits for its image, as upstream's dead
			// containers stay until the pod's next start.
			return notConverged("container %s is left over", c.ID)
		}
		if c.Running {
			running[c.PodUID] = c
		}
	}
	for _, o := range s.List(KindPod) {
		p := o.(*Pod)
		if p.Deleting {
			continue // held by a user's finalizer: its kubelet has stopped it
		}
		if p.Gated {
			return notConverged("pod %s waits for its scheduling gates to be removed", KeyOf(p))
		}
		_, ok := running[p.UID]
		if ok && p.Ready && p.Phase == PhaseRunning {
			continue
		}
		if failing(p.Image) && !ok && p.NodeName != "" && !p.Ready && (p.Waiting == WaitingImagePullBackOff || p.Waiting == WaitingInvalidImageName) {
			continue // honestly waiting for an image that does not pull
		}
		return notConverged("pod %s is not running and ready", KeyOf(p))
	}
	for _, o := range s.List(KindDeployment) {
		if o.meta().Deleting {
			continue // held: its controller leaves it as it is
		}
		d := o.(*Deployment)
		check := deploymentConverged
		if failing(d.Image) {
			check = deploymentReportsPods
		}
		if err := check(s, d); err != nil {
			return err
		}
	}
	if err := statefulSetsConverged(s, failing); err != nil {
		return err
	}
	return serviceConverged(s)
}

// neverPulls tells the images no container of s will run: those whose
// pulls fail, and those the kubelet cannot parse.
func neverPulls(s *Snapshot) func(image string) bool {
	failing := map[string]bool{}
	for _, img := range s.FailingImages {
		failing[img] = true
	}
	return func(image string) bool { return failing[image] || ImageNameError(image) != "" }
}

func deploymentConverged(s *Snapshot, d *Deployment) error {
	hash := TemplateHash(d.Image, d.PodLabels, d.Template)
	var cur *ReplicaSet
	for _, o := range s.List(KindReplicaSet) {
		rs := o.(*ReplicaSet)
		if rs.Owner.UID != d.UID {
			continue
		}
		want := 0
		if rs.Hash == hash {
			cur, want = rs, d.Replicas
		}
		if rs.Replicas != want || rs.Status != (ReplicaSetStatus{want, want}) {
			return notConverged("replicaset %s: spec %d, status %d/%d ready, want %d", rs.Name, rs.Replicas, rs.Status.ReadyReplicas, rs.Status.Replicas, want)
		}
		pods := 0
		for _, p := range s.List(KindPod) {
			if p.meta().Owner.UID == rs.UID && !p.meta().Deleting {
				pods++
			}
		}
		if pods != want {
			return notConverged("replicaset %s has %d pods, want %d", rs.Name, pods, want)
		}
	}
	if cur == nil {
		return notConverged("deployment %s has no ReplicaSet for its template", d.Name)
	}
	// The current template is the newest rollout, as rollout history and
	// undo assume.
	for _, o := range s.List(KindReplicaSet) {
		if rs := o.(*ReplicaSet); rs.Owner.UID == d.UID && rs != cur && rs.Revision >= cur.Revision {
			return notConverged("replicaset %s has revision %d, not below current %s's %d", rs.Name, rs.Revision, cur.Name, cur.Revision)
		}
	}
	r := d.Replicas
	if d.Status != (DeploymentStatus{r, r, r, r}) || d.ObservedGeneration != d.Generation {
		return notConverged("deployment %s status %+v at generation %d/%d, want %d everywhere", d.Name, d.Status, d.ObservedGeneration, d.Generation, r)
	}
	return nil
}

// deploymentReportsPods is convergence for a Deployment whose rollout an
// image that does not pull holds: nothing moves any more, so its status
// and its ReplicaSets' report their pods as they are (upstream's counts:
// replicas are the non-terminating pods, ready the ready ones).
func deploymentReportsPods(s *Snapshot, d *Deployment) error {
	var pods, ready int
	for _, o := range s.List(KindReplicaSet) {
		rs := o.(*ReplicaSet)
		if rs.Owner.UID != d.UID {
			continue
		}
		var n, r int
		for _, po := range s.List(KindPod) {
			if p := po.(*Pod); p.Owner.UID == rs.UID && !p.Deleting {
				n++
				if p.Ready {
					r++
				}
			}
		}
		if rs.Status != (ReplicaSetStatus{n, r}) {
			return notConverged("replicaset %s status %d/%d ready, its pods %d/%d", rs.Name, rs.Status.ReadyReplicas, rs.Status.Replicas, r, n)
		}
		pods, ready = pods+n, ready+r
	}
	if d.Status.Replicas != pods || d.Status.ReadyReplicas != ready || d.Status.AvailableReplicas != ready || d.ObservedGeneration != d.Generation {
		return notConverged("deployment %s status %+v at generation %d/%d, its pods %d/%d ready", d.Name, d.Status, d.ObservedGeneration, d.Generation, ready, pods)
	}
	return nil
}

func serviceConverged(s *Snapshot) error {
	want := map[string]Rule{}
	for _, o := range s.List(KindService) {
		svc := o.(*Service)
		ep, _ := s.Objects[Ref{Kind: KindEndpoints, Namespace: svc.Namespace, Name: svc.Name}].(*Endpoints)
		if EndpointsManaged(svc) {
			addrs, ports := EndpointsFor(svc, s.List(KindPod))
			if ep == nil || !slices.Equal(ep.Addresses, addrs) || !slices.Equal(ep.Ports, ports) {
				return notConverged("endpoints/%s does not list the ready pods", KeyOf(svc))
			}
		}
		want[KeyOf(svc)] = RuleFor(svc, ep)
	}
	for _, o := range s.List(KindEndpoints) {
		if s.Objects[Ref{Kind: KindService, Namespace: o.meta().Namespace, Name: o.meta().Name}] == nil {
			return notConverged("endpoints/%s has no Service", KeyOf(o))
		}
	}
	for node, rules := range s.Rules {
		if !maps.EqualFunc(rules, want, func(a, b Rule) bool { return a.Port == b.Port && slices.Equal(a.Backends, b.Backends) }) {
			return notConverged("kube-proxy rules on %s do not match the Services", node)
		}
	}
	return nil
}
