package project

import (
	"errors"
	"reflect"
	"strconv"
	"testing"

	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/model"
)

// testUIDs hands out "uid-1".."uid-n" as 1..n, so model objects written
// with small UIDs have known Kubernetes uids.
func testUIDs(n int) *UIDs {
	u := NewUIDs()
	for i := 1; i <= n; i++ {
		u.Of("uid-" + strconv.Itoa(i))
	}
	return u
}

func percent(v int) model.IntOrPercent { return model.IntOrPercent{Val: v, Percent: true} }
func count(v int) model.IntOrPercent   { return model.IntOrPercent{Val: v} }

// roundTrips are model objects as the model builds them; New then ToModel
// must give each back unchanged.
func roundTrips() []model.Obj {
	labels := map[string]string{"app": "myapp"}
	hashed := map[string]string{"app": "myapp", api.PodTemplateHashLabel: "bcdf"}
	return []model.Obj{
		&model.Deployment{Meta: model.Meta{Namespace: "default", Name: "myapp", Labels: labels, Version: 12, UID: 1},
			Replicas: 3, Image: "nginx:1.27", PodLabels: labels, MaxSurge: percent(25), MaxUnavailable: percent(25),
			Generation: 2, ObservedGeneration: 1, Status: model.DeploymentStatus{Replicas: 4, UpdatedReplicas: 1, ReadyReplicas: 3, AvailableReplicas: 3}},
		&model.Deployment{Meta: model.Meta{Namespace: "default", Name: "zero", Deleting: true},
			Replicas: 0, Image: "registry.local/team/app@sha256:abc", NodeSelector: map[string]string{"disk": "ssd"},
			MaxSurge: count(2), MaxUnavailable: count(0)},
		&model.ReplicaSet{Meta: model.Meta{Namespace: "default", Name: "myapp-bcdf", Labels: hashed, Owner: model.Owner{Kind: model.KindDeployment, Name: "myapp", UID: 1}},
			Replicas: 3, Image: "nginx:1.27", PodLabels: hashed, Hash: "bcdf", Status: model.ReplicaSetStatus{Replicas: 3, ReadyReplicas: 2}},
		&model.ReplicaSet{Meta: model.Meta{Namespace: "default", Name: "scaled-to-zero"}, Replicas: 0, Image: "busybox"},
		&model.Pod{Meta: model.Meta{Namespace: "default", Name: "myapp-bcdf-0", Labels: hashed, Owner: model.Owner{Kind: model.KindReplicaSet, Name: "myapp-bcdf", UID: 2}, Version: 40},
			Image: "nginx:1.27", CPU: 100, Memory: 128, NodeName: "n1", Phase: model.PhaseRunning, Ready: true,
			PodIP: model.PodIP(1, 2), Restarts: 3},
		&model.Pod{Meta: model.Meta{Namespace: "default", Name: "pending", Labels: labels}, Image: "busybox", CPU: 250, Memory: 64, Phase: model.PhasePending,
			NodeSelector: map[string]string{"zone": "a"}},
		&model.Pod{Meta: model.Meta{Namespace: "default", Name: "running-unready", Deleting: true}, Image: "busybox", CPU: 1000, Memory: 1, NodeName: "n2",
			Phase: model.PhaseRunning, PodIP: model.PodIP(260, 7)},
		&model.Node{Meta: model.Meta{Name: "n1", Labels: map[string]string{"kubernetes.io/hostname": "n1"}},
			Index: 0, CPU: 4000, Memory: 8192, MaxPods: 110, Ready: true, Heartbeat: 7, TransitionAt: 2},
		&model.Node{Meta: model.Meta{Name: "n300"}, Index: 300, CPU: 1500, Memory: 512, MaxPods: 3,
			Taints: []string{"node.kubernetes.io/unreachable:NoExecute", "dedicated:NoSchedule"}, Heartbeat: 0, TransitionAt: 9},
		&model.Service{Meta: model.Meta{Namespace: "default", Name: "myapp", Labels: labels}, Selector: labels, Ports: model.ServicePorts(80)},
		&model.Service{Meta: model.Meta{Namespace: "default", Name: "portless"}},
		&model.Endpoints{Meta: model.Meta{Namespace: "default", Name: "myapp", Labels: labels}, Ports: []model.EndpointPort{{Protocol: "TCP", Port: 80}}, Addresses: []model.Address{
			{Pod: "myapp-bcdf-0", IP: model.PodIP(1, 2), Node: "n1"}, {Pod: "myapp-bcdf-1", IP: model.PodIP(0, 5), Node: "n0"}}},
		&model.Endpoints{Meta: model.Meta{Namespace: "default", Name: "empty"}},
	}
}

func TestNewThenToModelGivesBackTheObject(t *testing.T) {
	for _, o := range roundTrips() {
		t.Run(model.RefOf(o).String(), func(t *testing.T) {
			uids := testUIDs(3)
			obj, err := New(o, nil, uids)
			if err != nil {
				t.Fatal(err)
			}
			got, err := ToModel(obj, uids)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, o) {
				t.Errorf("round trip changed the object:\n got %#v\nwant %#v", got, o)
			}
			// Applying the same object to its own rendering writes nothing.
			again, err := Apply(obj, o, uids)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(again, obj) {
				t.Errorf("Apply of an unchanged object changed it:\n got %s\nwant %s", mustJSON(t, again), mustJSON(t, obj))
			}
		})
	}
}

// Every pair of round-trip objects of one kind: Apply turns the rendering of
// one into the other.
func TestApplyTurnsOneObjectIntoAnother(t *testing.T) {
	objs := roundTrips()
	for _, from := range objs {
		for _, to := range objs {
			if from.Kind() != to.Kind() || from == to {
				continue
			}
			uids := testUIDs(3)
			base, err := New(from, nil, uids)
			if err != nil {
				t.Fatal(err)
			}
			api.Meta(base).Name = model.MetaOf(to).Name
			out, err := Apply(base, to, uids)
			if err != nil {
				t.Fatalf("%s -> %s: %v", model.RefOf(from), model.RefOf(to), err)
			}
			got, err := ToModel(out, uids)
			if err != nil {
				t.Fatalf("%s -> %s: %v", model.RefOf(from), model.RefOf(to), err)
			}
			if want := withUID(to, model.MetaOf(from).UID); !reflect.DeepEqual(got, want) {
				t.Errorf("%s -> %s:\n got %#v\nwant %#v", model.RefOf(from), model.RefOf(to), got, want)
			}
		}
	}
}

// withUID is o with another UID: Apply never rewrites the uid, which the
// store owns.
func withUID(o model.Obj, uid int64) model.Obj {
	switch x := o.(type) {
	case *model.Deployment:
		c := *x
		c.UID = uid
		return &c
	case *model.ReplicaSet:
		c := *x
		c.UID = uid
		return &c
	case *model.Pod:
		c := *x
		c.UID = uid
		return &c
	case *model.Node:
		c := *x
		c.UID = uid
		return &c
	case *model.Service:
		c := *x
		c.UID = uid
		return &c
	case *model.Endpoints:
		c := *x
		c.UID = uid
		return &c
	}
	return o
}

func TestErrors(t *testing.T) {
	uids := testUIDs(1)
	orphan := &model.Pod{Meta: model.Meta{Namespace: "default", Name: "p", Owner: model.Owner{Kind: model.KindReplicaSet, Name: "rs", UID: 99}}}
	svc := &api.Service{ObjectMeta: api.ObjectMeta{Name: "s"}}
	for _, c := range []struct {
		name string
		err  error
		want error
	}{
		{"unknown owner uid", second(New(orphan, nil, uids)), ErrUnknownUID},
		{"wrong template", second(New(&model.Pod{Meta: model.Meta{Namespace: "default", Name: "p"}}, svc, uids)), ErrMismatch},
		{"endpoints template", second(New(&model.Endpoints{Meta: model.Meta{Namespace: "default", Name: "e"}}, &api.Pod{}, uids)), ErrMismatch},
		{"nil UIDs", second(New(&model.Service{}, nil, nil)), ErrMismatch},
		{"kind mismatch", second(Apply(svc, &model.Pod{Meta: model.Meta{Namespace: "default", Name: "s"}}, uids)), ErrMismatch},
		{"name mismatch", second(Apply(svc, &model.Service{Meta: model.Meta{Namespace: "default", Name: "t"}}, uids)), ErrMismatch},
		{"nil base", second(Apply((*api.Service)(nil), &model.Service{}, uids)), ErrMismatch},
		{"nil object", second(ToModel((*api.Pod)(nil), uids)), ErrUnsupported},
		{"a subresource's body", second(ToModel(&api.Scale{}, uids)), ErrUnsupported},
		{"bad resourceVersion", second(ToModel(&api.Service{ObjectMeta: api.ObjectMeta{ResourceVersion: "x1"}}, uids)), ErrUnsupported},
		{"bad podCIDR", second(ToModel(&api.Node{Spec: api.NodeSpec{PodCIDR: "10.244.1.0/24"}}, uids)), ErrUnsupported},
		{"padded podCIDR", second(ToModel(&api.Node{Spec: api.NodeSpec{PodCIDR: "127.100.01.0/24"}}, uids)), ErrUnsupported},
		{"bad surge", second(ToModel(&api.Deployment{Spec: api.DeploymentSpec{Strategy: api.DeploymentStrategy{
			RollingUpdate: &api.RollingUpdateDeployment{MaxSurge: ptr(api.FromString("half"))}}}}, uids)), api.ErrInvalidIntOrPercent},
	} {
		if !errors.Is(c.err, c.want) {
			t.Errorf("%s: got %v, want %v", c.name, c.err, c.want)
		}
	}
}

func second[T any](_ T, err error) error { return err }
