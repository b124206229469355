package properties

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/converge-dev/converge/model"
)

// masked are the fields that differ between runs that reach the same end
// by different paths: names and places the cluster picks, counters and
// clocks. Everything else of the end state must be the same.
var masked = map[string]bool{
	"metadata.generation": true, "status.observedGeneration": true, "metadata.revision": true,
	"spec.nodeName": true, "status.podIP": true, "status.restartCount": true,
	// how a container's previous attempt ended is its crash history, as
	// its restart count is; a fault-free reference has none
	"status.lastTerminated": true,
	"spec.podCIDR":          true, "status.heartbeat": true, "status.transitionAt": true,
	"metadata.finalizers": true, // a user's on a pod is not an intent the reference replays
}

// unreplayed are the fields the reference run cannot make: it replays a
// Service as apply-service does (one unnamed port that targets its own
// number, compared by that number instead) and stamps pods from a
// template digest, which carries no container ports; so neither the
// Services' ports, the pods' named ports nor the Endpoints' ports (the
// targets resolved in those pods) are compared. The addresses are.
var unreplayed = map[string]bool{"spec.ports": true, "spec.containers.ports": true, "subsets.ports": true}

// maskedLines renders an end state without what masked names: pods by
// their owner and fields (so counted, not named), ReplicaSets scaled to
// zero left out (their number is the rollout history), leftovers left out,
// Endpoints and rules by how many backends they have besides leftovers.
func maskedLines(s *model.Snapshot, left leftovers) []string {
	var out []string
	count := map[string]int{}
	for _, o := range s.Objects {
		ref := model.RefOf(o)
		if rs, ok := o.(*model.ReplicaSet); ok && rs.Replicas == 0 && rs.Status == (model.ReplicaSetStatus{}) {
			continue
		}
		if left.uids[model.MetaOf(o).UID] {
			continue
		}
		if c, ok := o.(*model.PersistentVolumeClaim); ok && retainedClaim(s, c) {
			continue // oracle_statefulset.go
		}
		// EndpointSlices are held to the model by the lockstep only: a
		// user's endpoints controller may write Endpoints alone.
		if ref.Kind == model.KindEndpointSlice {
			continue
		}
		var fs []string
		for _, f := range s.Fields(o) {
			if !masked[f.Name] && !unreplayed[f.Name] && f.Name != "subsets.addresses" {
				fs = append(fs, f.Name+"="+f.Value)
			}
		}
		if svc, ok := o.(*model.Service); ok && svc.FirstPort() != 0 {
			fs = append(fs, fmt.Sprintf("spec.port=%d", svc.FirstPort())) // what apply-service replays
		}
		if ep, ok := o.(*model.Endpoints); ok {
			n := 0
			for _, a := range ep.Addresses {
				if !left.pods[model.Key(ep.Namespace, a.Pod)] {
					n++
				}
			}
			if n == 0 { // an Endpoints with no address has no subset, and no port
				fs = slices.DeleteFunc(fs, func(f string) bool { return strings.HasPrefix(f, "subsets.") })
			}
			fs = append(fs, fmt.Sprintf("addresses=%d", n))
		}
		if ref.Kind == model.KindPod {
			count["pods "+strings.Join(fs, " ")]++
			continue
		}
		out = append(out, ref.String()+" "+strings.Join(fs, " "))
	}
	for _, c := range s.Containers {
		if !left.uids[c.PodUID] {
			count[fmt.Sprintf("containers image=%s running=%v", c.Image, c.Running)]++
		}
	}
	for node, rules := range s.Rules {
		for svc, r := range rules {
			n := 0
			for _, ip := range r.Backends {
				if !left.ips[ip] {
					n++
				}
			}
			out = append(out, fmt.Sprintf("rules/%s/%s port=%d backends=%d", node, svc, r.Port, n))
		}
	}
	for k, n := range count {
		out = append(out, fmt.Sprintf("%s ×%d", k, n))
	}
	sort.Strings(out)
	return out
}

// leftovers are what an orphan delete, or a delete that a user's finalizer
// holds, leaves behind: the objects still being deleted, the ReplicaSets
// that lost their owner or whose owner is being deleted, and the pods of
// either. When the delete came decides what they are (a rollout half done
// stays so), and no sequential run of the last intents makes them, so the
// differential leaves them out and compares everything else, the Services'
// backends among it.
type leftovers struct {
	uids map[int64]bool
	pods map[string]bool // namespace/name
	ips  map[string]bool
}

func (in *Intents) leftoversOf(s *model.Snapshot) leftovers {
	left := stuckRollouts(s, in.orphans)
	for _, o := range s.Objects {
		if m := model.MetaOf(o); m.Deleting {
			left.uids[m.UID] = true
		}
	}
	left.follow(s)
	return left
}

// stuckRollouts are the Deployments whose template names an image that
// does not pull (model/world.go) or that the kubelet cannot parse
// (model/image_name.go), with their ReplicaSets and pods: their
// rollout is stuck where the history left it (how many old pods still
// serve, how many new ones wait), which a sequential run does not
// replay. The differential leaves them out on both sides; the rest of the
// end state is compared (properties' TestDifferentialSeesPastAStuckRollout).
func stuckRollouts(s *model.Snapshot, also map[int64]bool) leftovers {
	left := leftovers{uids: maps.Clone(also), pods: map[string]bool{}, ips: map[string]bool{}}
	if left.uids == nil {
		left.uids = map[int64]bool{}
	}
	for _, o := range s.List(model.KindDeployment) {
		if d := o.(*model.Deployment); slices.Contains(s.FailingImages, d.Image) || model.ImageNameError(d.Image) != "" {
			left.uids[d.UID] = true
		}
	}
	stuckStatefulSets(s, left)
	left.follow(s)
	return left
}

// follow adds the dependents of the left-over owners, and the pods' names
// and addresses.
func (left leftovers) follow(s *model.Snapshot) {
	// Owners before dependents: Deployments, then ReplicaSets, then pods.
	for _, k := range []model.Kind{model.KindReplicaSet, model.KindPod} {
		for _, o := range s.List(k) {
			if m := model.MetaOf(o); left.uids[m.Owner.UID] {
				left.uids[m.UID] = true
			}
		}
	}
	for _, o := range s.List(model.KindPod) {
		if p := o.(*model.Pod); left.uids[p.UID] {
			left.pods[model.KeyOf(p)] = true
			if p.PodIP != "" {
				left.ips[p.PodIP] = true
			}
		}
	}
}

// Reference is the end state of a fault-free, sequential run of the last
// intents on the correct model: the nodes and the live namespaces of s,
// then every Deployment and Service the user last left in place in them,
// then quiesce. What was in a namespace deleted since went with it.
func (in *Intents) Reference(s *model.Snapshot) (*model.Snapshot, error) {
	st := model.New(model.Config{})
	var acts []model.Action
	for _, o := range s.List(model.KindNode) {
		acts = append(acts, model.Action{Op: model.OpAddNode, Who: model.MetaOf(o).Name})
	}
	live := map[string]bool{model.DefaultNamespace: true}
	for _, o := range s.List(model.KindNamespace) {
		if m := model.MetaOf(o); !m.Deleting {
			live[m.Name] = true
			acts = append(acts, model.Action{Op: model.OpCreateNamespace, Key: m.Name})
		}
	}
	refs := make([]model.Ref, 0, len(in.last))
	for r := range in.last {
		refs = append(refs, r)
	}
	slices.SortFunc(refs, func(a, b model.Ref) int { return strings.Compare(a.String(), b.String()) })
	for _, r := range refs {
		it := in.last[r]
		if it.deleted || !live[r.Namespace] {
			continue
		}
		switch o := it.obj.(type) {
		case *model.Deployment:
			surge, unavailable := o.MaxSurge, o.MaxUnavailable
			acts = append(acts, model.Action{Op: model.OpApply, Key: model.KeyOf(o), N: o.Replicas, Image: o.Image, Surge: &surge, Unavailable: &unavailable})
			if o.HasFinalizer(model.UserFinalizer) {
				acts = append(acts, model.Action{Op: model.OpAddFinalizer, Kind: model.KindDeployment, Key: model.KeyOf(o)})
			}
		case *model.Service:
			acts = append(acts, model.Action{Op: model.OpApplyService, Key: model.KeyOf(o), App: o.Selector["app"], N: o.FirstPort()})
		case *model.StatefulSet:
			acts = append(acts, statefulSetApply(o))
		}
	}
	for _, a := range acts {
		if r := st.Step(a); r.Err != nil {
			return nil, fmt.Errorf("properties: the differential run: %s: %w", a, r.Err)
		}
	}
	// The same world: the images that do not pull here do not there.
	for _, img := range s.FailingImages {
		st.Step(model.Action{Op: model.OpImageFails, Image: img}) // not enabled (no longer in use): meaningless
	}
	for _, n := range s.CPUFullNodes {
		st.Step(model.Action{Op: model.OpNodeCPUFull, Who: n}) // not enabled (a pod is bound there): meaningless
	}
	if _, err := st.Quiesce(MaxQuiesceSteps); err != nil {
		return nil, fmt.Errorf("properties: the differential run: %w", err)
	}
	return st.Snapshot(), nil
}

// Differential is the differential oracle at convergence: the end state,
// masked, equals the reference run's. A run that converged through faults
// and interleavings to something a sequential run never produces (an extra
// pod nobody owns, a Service's port from an older apply, an image reverted)
// fails here even when every other check passes.
//
// What an orphan delete or a held delete left behind (leftoversOf) is not
// compared; the rest of the end state is.
func (in *Intents) Differential(s *model.Snapshot) error {
	ref, err := in.Reference(s)
	if err != nil {
		return err
	}
	got, want := maskedLines(s, in.leftoversOf(s)), maskedLines(ref, stuckRollouts(ref, nil))
	if slices.Equal(got, want) {
		return nil
	}
	var diff []string
	inWant := map[string]bool{}
	for _, l := range want {
		inWant[l] = true
	}
	inGot := map[string]bool{}
	for _, l := range got {
		inGot[l] = true
		if !inWant[l] {
			diff = append(diff, "only here: "+l)
		}
	}
	for _, l := range want {
		if !inGot[l] {
			diff = append(diff, "only in the sequential run: "+l)
		}
	}
	return violationf("the end state equals a fault-free sequential run's", "%s", strings.Join(diff, "; "))
}
