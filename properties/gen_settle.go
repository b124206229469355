package properties

import (
	"pgregory.net/rapid"

	"github.com/converge-dev/converge/model"
)

// SettleOdds is how rarely the implementation property draws a settle
// instead of one action: one draw in SettleOdds.
const SettleOdds = 3

// MaxSettleSteps bounds one settle: a fault still in force (a held
// component, a partitioned node) can keep the cluster busy.
const MaxSettleSteps = 500

// DrawSettle draws whether the next drawn action is a settle. Uniform
// draws of single steps rarely finish what they start: a rollout with
// ready old pods needs dozens of component steps in the right order before
// the next user action, which rapid's 30 steps almost never give. A settle
// finishes what is under way, so a few drawn actions (apply, settle, set
// image, settle) make a whole rolling update, and shrinking keeps them few.
func DrawSettle(t *rapid.T) bool {
	return rapid.IntRange(0, SettleOdds-1).Draw(t, "settle?") == 0
}

// Settle runs the fair quiesce schedule from where the cluster is, with
// whatever faults are in force, for at most MaxSettleSteps steps: every
// step goes through apply, so the script records it and the checks see it.
// A cluster without nodes gets one first, as the end of a run does: a
// pending pod is work under way too. With faults, a reconcile now and then
// gets a crash point (settleCrashOdds). A fault can keep a key failing (no
// Ready node to bind to): the settle stops once idleSteps steps in a row
// wrote nothing and delivered nothing.
func Settle(t *rapid.T, c interface {
	NextQuiesceStep() (model.Action, bool)
	Objects(k model.Kind) []model.Obj
}, faults bool, apply func(model.Action) model.Result) {
	if len(c.Objects(model.KindNode)) == 0 && len(c.Objects(model.KindDeployment)) > 0 {
		apply(model.Action{Op: model.OpAddNode, Who: NodeNames[0]})
	}
	idle := 0
	for range MaxSettleSteps {
		a, ok := c.NextQuiesceStep()
		if !ok || idle >= idleSteps {
			return
		}
		if faults && a.Op == model.OpReconcile && rapid.IntRange(0, settleCrashOdds-1).Draw(t, "settle crash?") == 0 {
			a.CrashAfter = rapid.IntRange(1, 3).Draw(t, "settle crash-after")
		}
		r := apply(a)
		idle++
		if a.Op == model.OpDeliver || a.Op == model.OpRelist {
			idle = 0
		}
		for _, w := range r.Writes {
			if w.Err == nil {
				idle = 0
			}
		}
	}
}

// idleSteps is how many fruitless steps end a settle.
const idleSteps = 12

// settleCrashOdds: with faults on, one reconcile of a settle in
// settleCrashOdds gets a crash point, so that crashes between two writes
// of one reconcile (the leak of an intermediate state) happen amid the
// long runs of work that settles are.
const settleCrashOdds = 40

// DrawImplAction is DrawAction for the implementation property: a reconcile
// gets a crash point twice as often (one in five), its user actions roll
// Deployments out and delete ready pods more often (drawImplUser), and
// when nothing can step, it draws a user action: a skip counts as a rejection, and rapid ends a run once
// rejections outnumber actions.
func DrawImplAction(t *rapid.T, st ActionSource, faults bool) model.Action {
	kind := rapid.IntRange(0, 9).Draw(t, "class")
	switch {
	case kind < 6:
		steps := st.EnabledSteps()
		if len(steps) == 0 {
			return drawImplUser(t, st)
		}
		a := rapid.SampledFrom(steps).Draw(t, "step")
		if faults && a.Op == model.OpReconcile && rapid.IntRange(0, 4).Draw(t, "crash?") == 0 {
			a.CrashAfter = rapid.IntRange(1, 3).Draw(t, "crash-after")
		}
		return a
	case kind < 8 || !faults:
		return drawImplUser(t, st)
	default:
		return rapid.SampledFrom(st.EnabledFaults()).Draw(t, "fault")
	}
}

// drawImplUser is DrawUser, biased to what turns a settled cluster into a
// transition: three times in eight it rolls an existing Deployment out to
// another image (or applies one, when there is none), one time in eight
// it deletes a ready pod (a replacement and an Endpoints update follow),
// one time in eight it deletes a running Deployment in the foreground or
// orphaning its dependents (the owner lifecycle), one time in eight it
// takes the second namespace a step through its lifecycle (created, a
// Deployment run in it, deleted with its pods running); otherwise
// DrawUser.
func drawImplUser(t *rapid.T, st ActionSource) model.Action {
	switch rapid.IntRange(0, 7).Draw(t, "bias") {
	case 7:
		return namespaceLifecycle(t, st)
	case 0, 1, 2:
		ds := st.Objects(model.KindDeployment)
		if len(ds) == 0 {
			return model.Action{Op: model.OpApply, Key: model.Key(model.DefaultNamespace, rapid.SampledFrom(DeploymentNames).Draw(t, "deployment")),
				N: rapid.IntRange(1, 4).Draw(t, "replicas"), Image: rapid.SampledFrom(ImageNames).Draw(t, "image")}
		}
		d := rapid.SampledFrom(ds).Draw(t, "rollout").(*model.Deployment)
		next := ImageNames[0]
		for i, img := range ImageNames {
			if img == d.Image {
				next = ImageNames[(i+1)%len(ImageNames)]
			}
		}
		return model.Action{Op: model.OpSetImage, Key: model.KeyOf(d), Image: next}
	case 3:
		var ready []model.Obj
		for _, o := range st.Objects(model.KindPod) {
			if p := o.(*model.Pod); p.Ready && !p.Deleting {
				ready = append(ready, o)
			}
		}
		if len(ready) == 0 {
			break
		}
		return model.Action{Op: model.OpDelete, Kind: model.KindPod, Key: model.KeyOf(rapid.SampledFrom(ready).Draw(t, "ready pod"))}
	case 6:
		var running []model.Obj
		for _, o := range st.Objects(model.KindDeployment) {
			if d := o.(*model.Deployment); !d.Deleting && d.Status.ReadyReplicas > 0 {
				running = append(running, o)
			}
		}
		if len(running) == 0 {
			break
		}
		return model.Action{Op: model.OpDelete, Kind: model.KindDeployment, Key: model.KeyOf(rapid.SampledFrom(running).Draw(t, "running deployment")),
			Policy: rapid.SampledFrom(Cascades[1:]).Draw(t, "cascade")}
	}
	return DrawUser(t, st)
}

// GracePeriod runs the control plane, not the kubelets, until it has
// nothing left to do: what happens while a deleted pod terminates, for the
// grace period a real kubelet takes. The fair schedule reconciles kubelets
// first (by name), so it removes a terminating pod before any controller
// sees it caught up; this gives the controllers that moment. It ends as a
// settle does.
func GracePeriod(c interface{ EnabledSteps() []model.Action }, apply func(model.Action) model.Result) {
	idle := 0
	for range MaxSettleSteps {
		var next *model.Action
		for _, a := range c.EnabledSteps() {
			if model.NodeOf(a.Who) != "" || a.Op == model.OpHeartbeat {
				continue
			}
			if a.Op == model.OpDeliver || a.Op == model.OpRelist {
				next = &a
				break
			}
			if next == nil && a.Op == model.OpReconcile {
				next = &a
			}
		}
		if next == nil || idle >= idleSteps {
			return
		}
		r := apply(*next)
		idle++
		if next.Op == model.OpDeliver || next.Op == model.OpRelist {
			idle = 0
		}
		for _, w := range r.Writes {
			if w.Err == nil {
				idle = 0
			}
		}
	}
}

// namespaceLifecycle is the next step of the second namespace's life: its
// creation, a Deployment in it, and, once that runs, its deletion.
func namespaceLifecycle(t *rapid.T, st ActionSource) model.Action {
	ns := Namespaces[1]
	var live model.Obj
	for _, o := range st.Objects(model.KindNamespace) {
		if model.MetaOf(o).Name == ns {
			live = o
		}
	}
	switch {
	case live == nil:
		return model.Action{Op: model.OpCreateNamespace, Key: ns}
	case model.MetaOf(live).Deleting:
		return DrawUser(t, st)
	}
	for _, o := range st.Objects(model.KindDeployment) {
		if d := o.(*model.Deployment); d.Namespace == ns && d.Status.ReadyReplicas > 0 {
			return model.Action{Op: model.OpDelete, Kind: model.KindNamespace, Key: ns}
		}
	}
	return model.Action{Op: model.OpApply, Key: model.Key(ns, rapid.SampledFrom(DeploymentNames).Draw(t, "deployment")),
		N: rapid.IntRange(1, 4).Draw(t, "replicas"), Image: rapid.SampledFrom(ImageNames).Draw(t, "image")}
}
