package properties

import (
	"strings"
	"testing"

	"github.com/converge-dev/converge/model"
)

// fakeCluster is an Observed and Quiescer with set answers.
type fakeCluster struct {
	comps  []string
	queue  map[string][]string
	steps  []model.Action
	faults []model.Action
	next   []model.Action
}

func (f *fakeCluster) Components() []string          { return f.comps }
func (f *fakeCluster) Queue(c string) []string       { return f.queue[c] }
func (f *fakeCluster) EnabledSteps() []model.Action  { return f.steps }
func (f *fakeCluster) EnabledFaults() []model.Action { return f.faults }

// Recovery is the part of the faults that ends one in force, as a real
// cluster's is.
func (f *fakeCluster) Recovery() []model.Action {
	var out []model.Action
	for _, a := range f.faults {
		if a.Op == model.OpRelease || a.Op == model.OpNodeUp {
			out = append(out, a)
		}
	}
	return out
}
func (f *fakeCluster) NextQuiesceStep() (model.Action, bool) {
	if len(f.next) == 0 {
		return model.Action{}, false
	}
	a := f.next[0]
	f.next = f.next[1:]
	return a, true
}

func snap(objs ...model.Obj) *model.Snapshot {
	s := &model.Snapshot{Objects: map[model.Ref]model.Obj{}, Rules: map[string]map[string]model.Rule{}}
	for _, o := range objs {
		s.Objects[model.RefOf(o)] = o
	}
	return s
}

func wantViolation(t *testing.T, err error, substr string) {
	t.Helper()
	if err == nil || !strings.Contains(err.Error(), substr) {
		t.Fatalf("got %v, want a violation containing %q", err, substr)
	}
}

func deployment(uid int64, replicas int, image string) *model.Deployment {
	return &model.Deployment{Meta: model.Meta{Name: "web", UID: uid, Labels: map[string]string{"app": "web"}}, Replicas: replicas, Image: image, PodLabels: map[string]string{"app": "web"}}
}

func TestIntentCatchesARevertNamingBothWriters(t *testing.T) {
	in := NewIntents()
	scale := model.Action{Op: model.OpScale, Key: "web", N: 1}
	if err := in.Observe(scale, []model.Write{{Actor: "user", Verb: model.VerbUpdate, Ref: model.Ref{Kind: model.KindDeployment, Name: "web"}, After: deployment(1, 1, "nginx:1")}}); err != nil {
		t.Fatal(err)
	}
	ok := model.Write{Actor: model.DeploymentController, Verb: model.VerbStatus, Ref: model.Ref{Kind: model.KindDeployment, Name: "web"}, After: deployment(1, 1, "nginx:1")}
	if err := in.Observe(model.Action{Op: model.OpReconcile, Who: model.DeploymentController}, []model.Write{ok}); err != nil {
		t.Fatalf("a status write that keeps the spec: %v", err)
	}
	revert := model.Write{Actor: "annotator", Verb: model.VerbUpdate, Ref: model.Ref{Kind: model.KindDeployment, Name: "web"}, After: deployment(1, 3, "nginx:1")}
	err := in.Observe(model.Action{Op: model.OpReconcile, Who: "annotator"}, []model.Write{revert})
	wantViolation(t, err, "controllers keep the user's intent")
	for _, s := range []string{"annotator", "scale web", `"3"`, `"1"`} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("%v does not name %s", err, s)
		}
	}
	wantViolation(t, in.Converged(snap(deployment(1, 3, "nginx:1"))), "the end state reflects the user's intent")
	if err := in.Converged(snap(deployment(1, 1, "nginx:1"))); err != nil {
		t.Fatal(err)
	}
	del := model.Write{Actor: "user", Verb: model.VerbDelete, Ref: model.Ref{Kind: model.KindDeployment, Name: "web"}, Before: deployment(1, 1, "nginx:1")}
	if err := in.Observe(model.Action{Op: model.OpDelete, Kind: model.KindDeployment, Key: "web"}, []model.Write{del}); err != nil {
		t.Fatal(err)
	}
	wantViolation(t, in.Converged(snap(deployment(1, 1, "nginx:1"))), "the user deleted it last")
}

func TestLeaksFindsOwnerlessPodsAControllerCreated(t *testing.T) {
	in := NewIntents()
	d := deployment(1, 1, "nginx:1")
	rs := &model.ReplicaSet{Meta: model.Meta{Name: "web-1", UID: 2, Owner: model.Owner{Kind: model.KindDeployment, Name: "web", UID: 1}}}
	owned := &model.Pod{Meta: model.Meta{Name: "web-1-a", UID: 3, Owner: model.Owner{Kind: model.KindReplicaSet, Name: "web-1", UID: 2}}}
	bare := &model.Pod{Meta: model.Meta{Name: "web-1-b", UID: 4}}
	create := model.Write{Actor: model.ReplicaSetController, Verb: model.VerbCreate, Ref: model.RefOf(bare), After: bare}
	if err := in.Observe(model.Action{Op: model.OpReconcile, Who: model.ReplicaSetController}, []model.Write{create}); err != nil {
		t.Fatal(err)
	}
	if err := in.Leaks(snap(d, rs, owned)); err != nil {
		t.Fatal(err)
	}
	wantViolation(t, in.Leaks(snap(d, rs, owned, bare)), "created by replicaset-controller, has no owner")
	wantViolation(t, in.Leaks(snap(d, owned)), "outlives its owner")
	userPod := &model.Pod{Meta: model.Meta{Name: "debug", UID: 5}}
	if err := in.Observe(model.Action{Op: model.OpCreatePod, Key: "debug"}, []model.Write{{Actor: "user", Verb: model.VerbCreate, Ref: model.RefOf(userPod), After: userPod}}); err != nil {
		t.Fatal(err)
	}
	if err := in.Leaks(snap(d, rs, owned, userPod)); err != nil {
		t.Fatalf("a bare pod the user made is no leak: %v", err)
	}
}

func TestCaughtUpComparesOutputsWithInputsOnlyWhenCaughtUp(t *testing.T) {
	labels := map[string]string{"app": "web"}
	rs := &model.ReplicaSet{Meta: model.Meta{Name: "web-1", UID: 2}, Replicas: 2, PodLabels: labels}
	pod := func(name string, uid int64, deleting bool) *model.Pod {
		return &model.Pod{Meta: model.Meta{Name: name, UID: uid, Labels: labels, Deleting: deleting, Owner: model.Owner{Kind: model.KindReplicaSet, Name: "web-1", UID: 2}}, Ready: true, PodIP: "10.0.0." + name[len(name)-1:]}
	}
	up := &fakeCluster{comps: []string{model.ReplicaSetController, model.EndpointsController}}
	if err := CaughtUp(up, snap(rs, pod("p1", 3, false), pod("p2", 4, false))); err != nil {
		t.Fatal(err)
	}
	short := snap(rs, pod("p1", 3, false), pod("p2", 4, true))
	wantViolation(t, CaughtUp(up, short), "replicaset web-1 has 1 live non-terminating pods, spec.replicas 2")
	busy := &fakeCluster{comps: up.comps, queue: map[string][]string{model.ReplicaSetController: {"web-1"}}}
	if err := CaughtUp(busy, short); err != nil {
		t.Fatalf("a controller with a queued key is not caught up: %v", err)
	}
	held := &fakeCluster{comps: up.comps, faults: []model.Action{{Op: model.OpRelease, Who: model.ReplicaSetController}}}
	if err := CaughtUp(held, short); err != nil {
		t.Fatalf("a held controller is not caught up: %v", err)
	}
	svc := &model.Service{Meta: model.Meta{Name: "web"}, Selector: labels, Ports: model.ServicePorts(80)}
	p1, p2 := pod("p1", 3, false), pod("p2", 4, true)
	ep := &model.Endpoints{Meta: model.Meta{Name: "web"}, Ports: []model.EndpointPort{{Protocol: "TCP", Port: 80}}, Addresses: []model.Address{{Pod: "p1", IP: p1.PodIP}, {Pod: "p2", IP: p2.PodIP}}}
	onlyEP := &fakeCluster{comps: []string{model.EndpointsController}}
	wantViolation(t, CaughtUp(onlyEP, snap(svc, ep, p1, p2)), "not the ready non-terminating pods")
	ep.Addresses = ep.Addresses[:1]
	if err := CaughtUp(onlyEP, snap(svc, ep, p1, p2)); err != nil {
		t.Fatal(err)
	}
	proxy := &fakeCluster{comps: []string{model.ProxyName("node-1")}}
	s := snap(svc, ep)
	s.Rules["node-1"] = map[string]model.Rule{"web": {Port: 80}}
	wantViolation(t, CaughtUp(proxy, s), model.ProxyName("node-1")+" is caught up")
	s.Rules["node-1"]["web"] = model.RuleFor(svc, ep)
	if err := CaughtUp(proxy, s); err != nil {
		t.Fatal(err)
	}
}

func TestAvailabilityCatchesAScaleDownBelowTheFloor(t *testing.T) {
	d := deployment(1, 4, "nginx:2")
	d.MaxSurge, d.MaxUnavailable = model.IntOrPercent{Val: 1}, model.IntOrPercent{Val: 1}
	set := func(name string, uid int64, replicas, ready int) *model.ReplicaSet {
		return &model.ReplicaSet{Meta: model.Meta{Name: name, UID: uid, Owner: model.Owner{Kind: model.KindDeployment, Name: "web", UID: 1}}, Replicas: replicas, Status: model.ReplicaSetStatus{Replicas: replicas, ReadyReplicas: ready}}
	}
	reconcile := model.Action{Op: model.OpReconcile, Who: model.DeploymentController, Key: "web"}
	var v Availability
	v.Before(&fakeCluster{}, snap(d, set("old", 2, 4, 4), set("new", 3, 1, 0)), reconcile)
	if err := v.After(snap(d, set("old", 2, 3, 4), set("new", 3, 1, 0))); err != nil {
		t.Fatalf("down to replicas − maxUnavailable: %v", err)
	}
	v.Before(&fakeCluster{}, snap(d, set("old", 2, 4, 4), set("new", 3, 1, 0)), reconcile)
	wantViolation(t, v.After(snap(d, set("old", 2, 0, 4), set("new", 3, 4, 0))), "took availability from 4 to 0, below 3")
	lagging := &fakeCluster{steps: []model.Action{{Op: model.OpDeliver, Who: model.DeploymentController, Kind: model.KindReplicaSet}}}
	v.Before(lagging, snap(d, set("old", 2, 4, 4), set("new", 3, 1, 0)), reconcile)
	if err := v.After(snap(d, set("old", 2, 0, 4), set("new", 3, 4, 0))); err != nil {
		t.Fatalf("a view that lags is not judged: %v", err)
	}
}

func TestFixedPointFailsOnAnyWriteAfterAResync(t *testing.T) {
	c := &fakeCluster{comps: []string{"a"}, faults: []model.Action{{Op: model.OpDropWatch, Who: "a"}},
		next: []model.Action{{Op: model.OpRelist, Who: "a"}, {Op: model.OpReconcile, Who: "a", Key: "x"}}}
	var applied []model.Action
	apply := func(a model.Action) (model.Result, error) {
		applied = append(applied, a)
		if a.Op == model.OpReconcile {
			return model.Result{Writes: []model.Write{{Actor: "a", Verb: model.VerbUpdate, Ref: model.Ref{Kind: model.KindPod, Name: "x"}}}}, nil
		}
		return model.Result{}, nil
	}
	wantViolation(t, FixedPoint(c, apply), "a resync at the fixed point writes nothing")
	if len(applied) != 3 || applied[0].Op != model.OpDropWatch {
		t.Fatalf("applied %v, want the drop, the relist and the reconcile", applied)
	}
}

func TestDifferentialComparesWithASequentialRun(t *testing.T) {
	st := model.New(model.Config{})
	in := NewIntents()
	for _, a := range []model.Action{
		{Op: model.OpAddNode, Who: "node-1"},
		{Op: model.OpApply, Key: "web", N: 2, Image: "nginx:1"},
		{Op: model.OpApplyService, Key: "web", App: "web", N: 80},
		{Op: model.OpSetImage, Key: "web", Image: "nginx:2"},
	} {
		if err := in.Observe(a, st.Step(a).Writes); err != nil {
			t.Fatal(err)
		}
		if _, err := st.Quiesce(MaxQuiesceSteps); err != nil {
			t.Fatal(err)
		}
	}
	s := st.Snapshot()
	if err := in.Differential(s); err != nil {
		t.Fatal(err)
	}
	for r, o := range s.Objects {
		if p, ok := o.(*model.Pod); ok {
			extra := *p
			extra.Name, extra.UID = p.Name+"x", p.UID+1000
			s.Objects[model.Ref{Kind: r.Kind, Name: extra.Name}] = &extra
			break
		}
	}
	wantViolation(t, in.Differential(s), "only here: pods")
}

// An orphan delete leaves ReplicaSets and pods that no sequential run
// makes: the differential leaves them out and compares the rest, and what
// is adopted again is compared again.
func TestDifferentialComparesWhatAnOrphanDeleteLeaves(t *testing.T) {
	st := model.New(model.Config{})
	in := NewIntents()
	step := func(a model.Action) {
		t.Helper()
		r := st.Step(a)
		if r.Err != nil {
			t.Fatalf("%s: %v", a, r.Err)
		}
		if err := in.Observe(a, r.Writes); err != nil {
			t.Fatal(err)
		}
		for range MaxQuiesceSteps {
			next, ok := st.NextQuiesceStep()
			if !ok {
				return
			}
			if err := in.Observe(next, st.Step(next).Writes); err != nil {
				t.Fatal(err)
			}
		}
		t.Fatal("no quiescence")
	}
	for _, a := range []model.Action{
		{Op: model.OpAddNode, Who: "node-1"},
		{Op: model.OpApply, Key: "default/web", N: 2, Image: "nginx:1"},
		{Op: model.OpApplyService, Key: "default/web", App: "web", N: 80},
		{Op: model.OpApply, Key: "default/api", N: 1, Image: "nginx:1"},
		{Op: model.OpDelete, Kind: model.KindDeployment, Key: "default/web", Policy: model.PropagateOrphan},
	} {
		step(a)
	}
	s := st.Snapshot()
	if len(in.orphans) == 0 {
		t.Fatal("the orphan delete freed nothing")
	}
	if err := in.Differential(s); err != nil {
		t.Fatalf("the orphans are compared: %v", err)
	}
	// The rest is still compared: a pod of api too many fails.
	for r, o := range s.Objects {
		if p, ok := o.(*model.Pod); ok && strings.HasPrefix(p.Name, "api-") {
			extra := *p
			extra.Name, extra.UID = p.Name+"x", p.UID+1000
			s.Objects[model.Ref{Kind: r.Kind, Namespace: r.Namespace, Name: extra.Name}] = &extra
			break
		}
	}
	wantViolation(t, in.Differential(s), "only here: pods")
	// Applied again, web adopts its orphans: compared again, and equal.
	step(model.Action{Op: model.OpApply, Key: "default/web", N: 2, Image: "nginx:1"})
	if len(in.orphans) != 0 {
		t.Fatalf("adopted, yet still orphans: %v", in.orphans)
	}
	if err := in.Differential(st.Snapshot()); err != nil {
		t.Fatal(err)
	}
}
