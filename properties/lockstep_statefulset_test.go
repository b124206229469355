package properties

import (
	"testing"

	"pgregory.net/rapid"

	"github.com/converge-dev/converge/model"
)

// drawStatefulSetUser draws a user action on StatefulSets: apply (create,
// scale, a new image, a retention policy), delete the set, delete one of
// its pods or claims, or add a node.
func drawStatefulSetUser(t *rapid.T, src ActionSource) model.Action {
	name := rapid.SampledFrom([]string{"db", "cache"}).Draw(t, "set")
	switch rapid.IntRange(0, 5).Draw(t, "sts-user") {
	case 0, 1:
		o := &model.StatefulSetOptions{Claims: []string{"data"}}
		if name == "cache" {
			o = &model.StatefulSetOptions{Parallel: true, Claims: []string{"data"}}
		}
		o.DeleteOnScale = rapid.Bool().Draw(t, "when-scaled")
		o.DeleteOnGone = rapid.Bool().Draw(t, "when-deleted")
		return model.Action{Op: model.OpApplyStatefulSet, Key: model.Key(model.DefaultNamespace, name), N: rapid.IntRange(0, 3).Draw(t, "replicas"),
			Image: rapid.SampledFrom(ImageNames).Draw(t, "image"), StatefulSet: o}
	case 2:
		return model.Action{Op: model.OpDelete, Kind: model.KindStatefulSet, Key: model.Key(model.DefaultNamespace, name)}
	case 3:
		if pods := src.Objects(model.KindPod); len(pods) > 0 {
			return model.Action{Op: model.OpDelete, Kind: model.KindPod, Key: model.KeyOf(rapid.SampledFrom(pods).Draw(t, "pod"))}
		}
	case 4:
		if claims := src.Objects(model.KindPersistentVolumeClaim); len(claims) > 0 {
			return model.Action{Op: model.OpDelete, Kind: model.KindPersistentVolumeClaim, Key: model.KeyOf(rapid.SampledFrom(claims).Draw(t, "claim"))}
		}
	}
	return model.Action{Op: model.OpAddNode, Who: rapid.SampledFrom(NodeNames).Draw(t, "node")}
}

// lockstepStatefulSets is the lockstep property over StatefulSet actions:
// the model's statefulset controller and the implementation's, which runs
// the same decision code against etcd, agree step by step, the
// StatefulSet invariants hold on both, and both converge.
func lockstepStatefulSets(t *testing.T, faults bool) {
	rapid.Check(t, func(rt *rapid.T) {
		s := newStepped(t, rt)
		defer s.Close()
		p := NewPair(model.Config{}, s)
		check := func(err error) {
			if err != nil {
				rt.Fatalf("%v\n%s", err, p.Script)
			}
		}
		rt.Repeat(map[string]func(*rapid.T){
			"action": func(rt *rapid.T) {
				var a model.Action
				switch k := rapid.IntRange(0, 9).Draw(rt, "class"); {
				case k < 6:
					steps := p.Model.EnabledSteps()
					if len(steps) == 0 {
						// Skips this one drawn action (rapid's state-machine
						// idiom, as lockstep.go does), never the test.
						rt.Skip("nothing enabled")
					}
					a = rapid.SampledFrom(steps).Draw(rt, "step")
				case k < 9 || !faults:
					a = drawStatefulSetUser(rt, p.Model)
				default:
					a = rapid.SampledFrom(p.Model.EnabledFaults()).Draw(rt, "fault")
				}
				_, err := p.Step(a)
				check(err)
			},
		})
		check(p.Finish())
	})
}

func TestLockstepStatefulSets(t *testing.T)           { lockstepStatefulSets(t, false) }
func TestLockstepStatefulSetsWithFaults(t *testing.T) { lockstepStatefulSets(t, true) }
