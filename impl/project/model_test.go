package project

import (
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/model"
)

// run steps the model through a script and lets every component finish.
func run(t *testing.T, st *model.State, script ...string) *model.Snapshot {
	t.Helper()
	return record(t, st, nil, script...)
}

// record is run that also keeps the snapshot after every single step.
func record(t *testing.T, st *model.State, snaps *[]*model.Snapshot, script ...string) *model.Snapshot {
	t.Helper()
	keep := func() {
		if snaps != nil {
			*snaps = append(*snaps, st.Snapshot())
		}
	}
	for _, line := range script {
		a, err := model.ParseAction(line)
		if err != nil {
			t.Fatal(err)
		}
		if r := st.Step(a); r.Err != nil {
			t.Fatalf("%s: %v", line, r.Err)
		}
		keep()
	}
	for range 10000 {
		n := len(st.Drain("*", 1))
		if n == 0 {
			n = len(st.Drain("*/*", 1))
		}
		if n == 0 {
			break
		}
		keep()
	}
	return st.Snapshot()
}

// modelUIDs numbers "uid-1".."uid-n" as the model numbers its objects.
func modelUIDs(snaps ...*model.Snapshot) *UIDs {
	var max int64
	for _, s := range snaps {
		for _, o := range s.Objects {
			max = maxInt(max, model.MetaOf(o).UID)
		}
	}
	u := NewUIDs()
	for i := int64(1); i <= max; i++ {
		u.Of("uid-" + strconv.FormatInt(i, 10))
	}
	return u
}

func maxInt(a, b int64) int64 {
	if a > b {
		return a
	}
	return b
}

// render builds every object of a model snapshot as the implementation
// would create it, each from the template its creator has.
func render(t *testing.T, s *model.Snapshot, uids *UIDs) map[model.Ref]api.Object {
	t.Helper()
	out := map[model.Ref]api.Object{}
	var get func(r model.Ref) api.Object
	get = func(r model.Ref) api.Object {
		if obj, ok := out[r]; ok {
			return obj
		}
		o := s.Objects[r]
		if o == nil {
			return nil
		}
		var template api.Object
		switch x := o.(type) {
		case *model.ReplicaSet, *model.Pod:
			if ow := model.MetaOf(o).Owner; ow.UID != 0 {
				template = get(model.Ref{Kind: ow.Kind, Name: ow.Name})
			}
		case *model.Endpoints:
			template = get(model.Ref{Kind: model.KindService, Name: x.Name})
		}
		obj, err := New(o, template, uids)
		if err != nil {
			t.Fatalf("New(%s): %v", r, err)
		}
		out[r] = obj
		return obj
	}
	for r := range s.Objects {
		get(r)
	}
	return out
}

// project is the lockstep projection of rendered objects.
func project(t *testing.T, objs map[model.Ref]api.Object, uids *UIDs) *model.Snapshot {
	t.Helper()
	s := &model.Snapshot{Objects: map[model.Ref]model.Obj{}}
	for r, obj := range objs {
		o, err := ToModel(obj, uids)
		if err != nil {
			t.Fatalf("ToModel(%s): %v", r, err)
		}
		s.Objects[r] = o
	}
	return s
}

func objectsOnly(s *model.Snapshot) *model.Snapshot { return &model.Snapshot{Objects: s.Objects} }

var seedFlow = []string{
	"add-node n1", "add-node n2",
	"apply myapp replicas=3 image=nginx:1.27",
	"apply-service myapp app=myapp port=80",
	"apply-service lonely app=nobody port=81",
	"create-pod solo image=busybox",
}

// Every object of a settled seed flow renders and projects back to itself.
func TestModelStatesRoundTrip(t *testing.T) {
	s := run(t, model.New(model.Config{}), seedFlow...)
	if len(s.List(model.KindPod)) != 4 || len(s.List(model.KindEndpoints)) != 2 {
		t.Fatalf("seed flow did not settle:\n%v", s.Lines())
	}
	uids := modelUIDs(s)
	objs := render(t, s, uids)
	if d := model.Diff(objectsOnly(s), project(t, objs, uids), "model", "project"); len(d) > 0 {
		t.Errorf("projection differs:\n%v", d)
	}
	for r, o := range s.Objects {
		got, err := ToModel(objs[r], uids)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, o) {
			t.Errorf("%s:\n got %#v\nwant %#v", r, got, o)
		}
	}
}

// A rollout, a scale-down, lost nodes and evictions, step by step: Apply
// carries each object from its rendering before a step to its state after.
func TestModelTransitionsApply(t *testing.T) {
	st := model.New(model.Config{})
	var snaps []*model.Snapshot
	record(t, st, &snaps, seedFlow...)
	record(t, st, &snaps, "set-image myapp nginx:1.28", "scale myapp 2", "apply-service myapp app=myapp port=8080")
	for range model.NodeMonitorGrace + model.EvictionTimeout + 1 {
		record(t, st, &snaps, "tick")
	}
	uids := modelUIDs(snaps...)
	applied := map[string]int{}
	for i := 1; i < len(snaps); i++ {
		prev, next := snaps[i-1], snaps[i]
		old := render(t, prev, uids)
		for r, o := range next.Objects {
			was := prev.Objects[r]
			if was == nil || model.MetaOf(was).UID != model.MetaOf(o).UID || reflect.DeepEqual(was, o) {
				continue // created since (New's job) or unchanged
			}
			out, err := Apply(old[r], o, uids)
			if err != nil {
				t.Fatalf("Apply(%s): %v", r, err)
			}
			got, err := ToModel(out, uids)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, o) {
				t.Errorf("%s:\n got %#v\nwant %#v", r, got, o)
			}
			applied[r.Kind.Resource()]++
		}
	}
	// Every kind must have seen real changes, or the test proves little.
	for k := range 6 {
		if res := model.Kind(k).Resource(); applied[res] == 0 {
			t.Errorf("no %s changed: %v", res, applied)
		}
	}
	var deleting int
	for _, s := range snaps {
		for _, o := range s.List(model.KindPod) {
			if model.MetaOf(o).Deleting {
				deleting++
			}
		}
	}
	if deleting == 0 {
		t.Errorf("no pod was ever deleting")
	}
	t.Logf("%d steps, changes applied: %v", len(snaps), applied)
}

// The user actions' objects project to what the model stores for them,
// once the apiserver has done its part (defaults, generation 1).
func TestUserActionObjectsMatchTheModel(t *testing.T) {
	surge, unavailable := count(1), percent(50)
	s := run(t, model.New(model.Config{}), "add-node n1", "add-node n2",
		"apply myapp replicas=3 image=nginx:1.27", "apply strict replicas=2 image=busybox surge=1 unavailable=50%",
		"apply-service web app=myapp port=80", "create-pod solo image=busybox")
	dep := DeploymentFor("myapp", "nginx:1.27", 3, nil, nil)
	strict := DeploymentFor("strict", "busybox", 2, &surge, &unavailable)
	for _, c := range []struct {
		obj api.Object
		ref model.Ref
	}{
		{NodeFor("n1", 0, 0), model.Ref{Kind: model.KindNode, Name: "n1"}},
		{NodeFor("n2", 1, 0), model.Ref{Kind: model.KindNode, Name: "n2"}},
		{dep, model.Ref{Kind: model.KindDeployment, Namespace: "default", Name: "myapp"}},
		{strict, model.Ref{Kind: model.KindDeployment, Namespace: "default", Name: "strict"}},
		{ServiceFor("web", "myapp", 80), model.Ref{Kind: model.KindService, Namespace: "default", Name: "web"}},
		{PodFor("solo", "busybox"), model.Ref{Kind: model.KindPod, Namespace: "default", Name: "solo"}},
	} {
		api.Default(c.obj)
		if err := api.Validate(c.obj); err != nil {
			t.Errorf("%s: invalid: %v", c.ref, err)
		}
		if d, ok := c.obj.(*api.Deployment); ok {
			d.Generation = 1
		}
		got, err := ToModel(c.obj, NewUIDs())
		if err != nil {
			t.Fatal(err)
		}
		want := s.Objects[c.ref]
		if want == nil {
			t.Fatalf("model has no %s", c.ref)
		}
		// The first write of the settled model may be followed by status
		// writes; compare what the user wrote.
		if g, w := userFields(s, got), userFields(s, want); !reflect.DeepEqual(g, w) {
			t.Errorf("%s:\n got %v\nwant %v", c.ref, g, w)
		}
	}
}

// userFields are an object's observable fields less those components write
// after the user: workload and pod status, and a pod's node.
func userFields(s *model.Snapshot, o model.Obj) []model.Field {
	var out []model.Field
	for _, f := range s.Fields(o) {
		switch o.(type) {
		case *model.Deployment, *model.Pod:
			// The revision is the deployment controller's, with its status.
			if strings.HasPrefix(f.Name, "status.") || f.Name == "spec.nodeName" || f.Name == "metadata.revision" {
				continue
			}
		}
		out = append(out, f)
	}
	return out
}
