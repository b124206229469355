package properties

import (
	"fmt"
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
	"spec.podCIDR": true, "status.heartbeat": true, "status.transitionAt": true,
	"metadata.finalizers": true, // a user's on a pod is not an intent the reference replays
}

// maskedLines renders an end state without what masked names: pods by
// their owner and fields (so counted, not named), ReplicaSets scaled to
// zero left out (their number is the rollout history), objects a user's
// finalizer holds left out, Endpoints and rules by how many backends they
// have.
func maskedLines(s *model.Snapshot) []string {
	var out []string
	count := map[string]int{}
	for _, o := range s.Objects {
		ref := model.RefOf(o)
		if rs, ok := o.(*model.ReplicaSet); ok && rs.Replicas == 0 && rs.Status == (model.ReplicaSetStatus{}) {
			continue
		}
		if model.MetaOf(o).Deleting {
			continue // converged, so a user's finalizer holds it: when it was deleted is the run's own
		}
		var fs []string
		for _, f := range s.Fields(o) {
			if !masked[f.Name] && f.Name != "subsets.addresses" {
				fs = append(fs, f.Name+"="+f.Value)
			}
		}
		if ep, ok := o.(*model.Endpoints); ok {
			fs = append(fs, fmt.Sprintf("addresses=%d", len(ep.Addresses)))
		}
		if ref.Kind == model.KindPod {
			count["pods "+strings.Join(fs, " ")]++
			continue
		}
		out = append(out, ref.String()+" "+strings.Join(fs, " "))
	}
	for _, c := range s.Containers {
		count[fmt.Sprintf("containers image=%s running=%v", c.Image, c.Running)]++
	}
	for node, rules := range s.Rules {
		for svc, r := range rules {
			out = append(out, fmt.Sprintf("rules/%s/%s port=%d backends=%d", node, svc, r.Port, len(r.Backends)))
		}
	}
	for k, n := range count {
		out = append(out, fmt.Sprintf("%s ×%d", k, n))
	}
	sort.Strings(out)
	return out
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
			acts = append(acts, model.Action{Op: model.OpApplyService, Key: model.KeyOf(o), App: o.Selector["app"], N: o.Port})
		}
	}
	for _, a := range acts {
		if r := st.Step(a); r.Err != nil {
			return nil, fmt.Errorf("properties: the differential run: %s: %w", a, r.Err)
		}
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
// A run where the user orphaned dependents, or deleted an object that a
// finalizer held, is not compared: what is left is frozen at the moment of
// the delete.
func (in *Intents) Differential(s *model.Snapshot) error {
	if in.frozen {
		return nil
	}
	ref, err := in.Reference(s)
	if err != nil {
		return err
	}
	got, want := maskedLines(s), maskedLines(ref)
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
