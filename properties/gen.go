package properties

import (
	"pgregory.net/rapid"

	"github.com/converge-dev/converge/model"
)

// Small pools keep collisions (same names, same nodes) frequent.
var (
	DeploymentNames = []string{"web", "api"}
	ImageNames      = []string{"nginx:1", "nginx:2", "nginx:3"}
	NodeNames       = []string{"node-1", "node-2", "node-3"}
	// Namespaces: objects go in the default one or in a second one, which
	// users create and delete (default first, so draws shrink to it).
	Namespaces = []string{model.DefaultNamespace, "team-b"}
)

// ActionSource is a cluster that actions are drawn from: the model, or the
// stepped implementation when it runs code the model does not have.
type ActionSource interface {
	EnabledSteps() []model.Action
	EnabledFaults() []model.Action
	Objects(k model.Kind) []model.Obj
}

// DrawUser draws one user action.
func DrawUser(t *rapid.T, st ActionSource) model.Action {
	name := rapid.SampledFrom(DeploymentNames).Draw(t, "deployment")
	d := model.Key(drawNamespace(t, st), name)
	switch rapid.IntRange(0, 9).Draw(t, "user") {
	case 0, 1:
		return model.Action{Op: model.OpApply, Key: d, N: rapid.IntRange(0, 4).Draw(t, "replicas"), Image: rapid.SampledFrom(ImageNames).Draw(t, "image")}
	case 2:
		return model.Action{Op: model.OpScale, Key: d, N: rapid.IntRange(0, 4).Draw(t, "replicas")}
	case 3:
		return model.Action{Op: model.OpSetImage, Key: d, Image: rapid.SampledFrom(ImageNames).Draw(t, "image")}
	case 4:
		a := model.Action{Op: model.OpDelete, Kind: rapid.SampledFrom([]model.Kind{model.KindDeployment, model.KindService}).Draw(t, "kind"), Key: d}
		if a.Kind == model.KindDeployment {
			a.Policy = rapid.SampledFrom(Cascades).Draw(t, "cascade")
		}
		return a
	case 5:
		if pods := st.Objects(model.KindPod); len(pods) > 0 {
			return model.Action{Op: model.OpDelete, Kind: model.KindPod, Key: model.KeyOf(rapid.SampledFrom(pods).Draw(t, "pod"))}
		}
		return model.Action{Op: model.OpTick}
	case 6:
		return model.Action{Op: model.OpAddNode, Who: rapid.SampledFrom(NodeNames).Draw(t, "node")}
	case 7:
		return model.Action{Op: model.OpRemoveNode, Who: rapid.SampledFrom(NodeNames).Draw(t, "node")}
	case 8:
		return model.Action{Op: model.OpApplyService, Key: d, App: name, N: 80}
	}
	// An operator's finalizer on a Deployment, and its removal (the
	// cleanup done), or a tick. Not on pods: a StatefulSet-like controller
	// (the ordinal-names control) rightly waits forever for a held pod's
	// name, which the convergence and caught-up checks do not know yet.
	// Pods' finalizers ran in lockstep campaigns (see the README).
	// Or the second namespace created, or deleted.
	op := []model.Op{model.OpTick, model.OpAddFinalizer, model.OpRemoveFinalizer, model.OpCreateNamespace, model.OpDelete}[rapid.IntRange(0, 4).Draw(t, "finalizer")]
	switch op {
	case model.OpTick:
		return model.Action{Op: op}
	case model.OpCreateNamespace:
		return model.Action{Op: op, Key: Namespaces[1]}
	case model.OpDelete:
		return model.Action{Op: op, Kind: model.KindNamespace, Key: Namespaces[1]}
	}
	return model.Action{Op: op, Kind: model.KindDeployment, Key: d}
}

// Cascades are the propagation policies a drawn delete of a Deployment
// uses, background (kubectl's default) first so that it shrinks to it.
var Cascades = []model.Propagation{model.PropagateDefault, model.PropagateForeground, model.PropagateOrphan}

// DrawAction draws one action from the model's state: mostly component
// steps (sometimes with a crash point), then user actions, then faults
// (when allowed). ok is false when nothing is enabled.
func DrawAction(t *rapid.T, st ActionSource, faults bool) (a model.Action, ok bool) {
	kind := rapid.IntRange(0, 9).Draw(t, "class")
	switch {
	case kind < 6:
		steps := st.EnabledSteps()
		if len(steps) == 0 {
			return model.Action{}, false
		}
		a := rapid.SampledFrom(steps).Draw(t, "step")
		if faults && a.Op == model.OpReconcile && rapid.IntRange(0, 9).Draw(t, "crash?") == 0 {
			a.CrashAfter = rapid.IntRange(1, 3).Draw(t, "crash-after")
		}
		return a, true
	case kind < 8 || !faults:
		return DrawUser(t, st), true
	default:
		return rapid.SampledFrom(st.EnabledFaults()).Draw(t, "fault"), true
	}
}

// drawNamespace draws where a user action's object lives: the default
// namespace, or another one while it exists (a create in a missing
// namespace only fails, and would thin out the actions that matter).
func drawNamespace(t *rapid.T, st ActionSource) string {
	var open []string
	for _, o := range st.Objects(model.KindNamespace) {
		if m := model.MetaOf(o); !m.Deleting {
			open = append(open, m.Name)
		}
	}
	if len(open) == 0 {
		return model.DefaultNamespace
	}
	return rapid.SampledFrom(append([]string{model.DefaultNamespace}, open...)).Draw(t, "namespace")
}
