package cluster

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/converge-dev/converge/impl/controller"
	"github.com/converge-dev/converge/impl/store/storetest"
	"github.com/converge-dev/converge/model"
)

// webInTwoNamespaces is a Deployment named web in the default namespace
// and another in team-b.
var webInTwoNamespaces = []string{"create-namespace team-b", "apply web replicas=1 image=nginx:1", "apply team-b/web replicas=1 image=nginx:1"}

// requestRecorder is a new component over Deployments that records every
// request and whether its cache held the object asked for.
func requestRecorder(keys func(model.WatchEvent) []string, got map[controller.Request]bool) ControllerSpec {
	return ControllerSpec{Name: "web-watcher", Watches: []model.Kind{model.KindDeployment}, Keys: keys,
		New: func(env ControllerEnv) controller.Reconciler {
			return userController(func(_ context.Context, req controller.Request) (controller.Result, error) {
				_, ok := env.Cache(model.KindDeployment).Get(req.Namespace, req.Name)
				got[req] = ok
				return controller.Result{}, nil
			})
		}}
}

// quiesceStepped runs the stepped cluster's fair quiesce to its end.
func quiesceStepped(t *testing.T, s *Stepped) {
	t.Helper()
	for range 5000 {
		a, ok := s.NextQuiesceStep()
		if !ok {
			return
		}
		if r := s.Step(a); errors.Is(r.Err, model.ErrNotEnabled) {
			t.Fatal(r.Err)
		}
	}
	t.Fatal("quiesce did not finish")
}

// TestNewComponentKeysByNamespaceAndName: a new component with no Keys
// queues namespace/name, as client-go's MetaNamespaceKeyFunc, so web in
// default and web in team-b are two requests, each for an object its
// cache holds. Queued by bare name, both were one request for default/web.
func TestNewComponentKeysByNamespaceAndName(t *testing.T) {
	got := map[controller.Request]bool{}
	s, err := NewStepped(SteppedConfig{Store: storetest.Store(t), Controllers: []ControllerSpec{requestRecorder(nil, got)}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	for _, line := range webInTwoNamespaces {
		mustStep(t, s, line)
	}
	quiesceStepped(t, s)
	for _, ns := range []string{model.DefaultNamespace, "team-b"} {
		req := controller.Request{Namespace: ns, Name: "web"}
		if found, asked := got[req]; !asked || !found {
			t.Errorf("%s/web: asked %v, in the cache %v", ns, asked, found)
		}
	}
	if len(got) != 2 {
		t.Errorf("requests %v, want default/web and team-b/web", got)
	}
	if errs := s.Errors(); len(errs) > 0 {
		t.Errorf("errors: %v", errs)
	}
}

// bareNames is the natural first try at Keys that drops the namespace.
func bareNames(e model.WatchEvent) []string { return []string{model.MetaOf(e.Obj).Name} }

// TestKeysThatDropTheNamespaceAreRefusedWhenBuilt: a Keys answering
// o.Name is refused by NewStepped, with an error naming the spec and the
// key it should have been.
func TestKeysThatDropTheNamespaceAreRefusedWhenBuilt(t *testing.T) {
	_, err := NewStepped(SteppedConfig{Store: storetest.Store(t), Controllers: []ControllerSpec{requestRecorder(bareNames, map[controller.Request]bool{})}})
	if err == nil {
		t.Fatal("a Keys returning bare names was accepted")
	}
	for _, want := range []string{"web-watcher", "namespace/name", `"converge-keys-probe-ns/converge-keys-probe"`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
}

// TestKeysThatDropTheNamespaceAreReportedAtRunTime: a Keys the trial at
// build time misses (it answers bare names only outside the probe's
// namespace) is reported as the cluster's error on the first event it
// gets wrong, once.
func TestKeysThatDropTheNamespaceAreReportedAtRunTime(t *testing.T) {
	keys := func(e model.WatchEvent) []string {
		if m := model.MetaOf(e.Obj); m.Namespace == "team-b" {
			return []string{m.Name}
		}
		return []string{model.KeyOf(e.Obj)}
	}
	s, err := NewStepped(SteppedConfig{Store: storetest.Store(t), Controllers: []ControllerSpec{requestRecorder(keys, map[controller.Request]bool{})}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	for _, line := range webInTwoNamespaces {
		mustStep(t, s, line)
	}
	quiesceStepped(t, s)
	errs := s.Errors()
	if len(errs) != 1 {
		t.Fatalf("errors %v, want one", errs)
	}
	for _, want := range []string{"web-watcher", `"web"`, "deployments/team-b/web", `"team-b/web"`} {
		if !strings.Contains(errs[0].Error(), want) {
			t.Errorf("error %q does not say %q", errs[0], want)
		}
	}
}

// TestBareKeysOfClusterScopedObjectsAreKept: a Pod mapped to its Node's
// bare name is a cluster-scoped key, not a dropped namespace, even when
// the Node and the Pod share a name; and a Keys that maps an owned object
// to its owner's bare name is still refused (the teeth of the exemption).
func TestBareKeysOfClusterScopedObjectsAreKept(t *testing.T) {
	c := &component{name: "pod-watcher", kinds: []model.Kind{model.KindPod, model.KindNode, model.KindReplicaSet}, mem: model.NewMemory("pod-watcher"),
		user: &userCode{spec: ControllerSpec{Name: "pod-watcher"}}}
	node := &model.Node{Meta: model.Meta{Name: "node-1"}}
	rs := &model.ReplicaSet{Meta: model.Meta{Name: "web-1", Namespace: "team-b"}}
	pod := &model.Pod{Meta: model.Meta{Name: "node-1", Namespace: "team-b"}}
	for _, o := range []model.Obj{node, rs, pod} {
		c.mem.Put(o)
	}
	ev := model.WatchEvent{Type: model.Added, Obj: pod}
	if err := c.checkKey(ev, "node-1"); err != nil {
		t.Errorf("a Node's name refused: %v", err)
	}
	if err := c.checkKey(ev, "team-b/node-1"); err != nil {
		t.Errorf("namespace/name refused: %v", err)
	}
	if err := c.checkKey(ev, "web-1"); err == nil {
		t.Error("the owner's bare name was kept")
	}
	if err := c.checkKey(ev, "all"); err != nil {
		t.Errorf("a key that names no object refused: %v", err)
	}
	c.mem.Remove(model.RefOf(node))
	if err := c.checkKey(ev, "node-1"); err == nil {
		t.Error("the pod's own bare name was kept with no Node of that name")
	}
}

// TestSeveralSpecsReplaceABuiltInWithANewComponent: Disabled keeps the
// endpoints controller's queue but reconciles nothing, and a new
// component beside it is a second spec of the same cluster.
func TestSeveralSpecsReplaceABuiltInWithANewComponent(t *testing.T) {
	got := map[controller.Request]bool{}
	s, err := NewStepped(SteppedConfig{Store: storetest.Store(t), Controllers: []ControllerSpec{Disabled(model.EndpointsController), requestRecorder(nil, got)}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	for _, line := range append(webInTwoNamespaces, "apply-service web app=web port=80") {
		mustStep(t, s, line)
	}
	quiesceStepped(t, s)
	if len(got) != 2 {
		t.Errorf("the new component got %v", got)
	}
	if _, ok := s.LastReconcile(model.EndpointsController, "default/web"); !ok {
		t.Error("the disabled endpoints controller never reconciled the Service")
	}
	if eps := s.Objects(model.KindEndpoints); len(eps) != 0 {
		t.Errorf("the disabled endpoints controller wrote %v", eps)
	}
	if names, ok := s.StandIns(model.EndpointsController); !ok || len(names) != 0 {
		t.Errorf("StandIns(endpoints) = %v, %v; want none (web-watcher watches Deployments only), true", names, ok)
	}
	if _, ok := s.StandIns(model.ReplicaSetController); ok {
		t.Error("the replicaset controller is not disabled")
	}
	pods := ControllerSpec{Name: "pod-watcher", Watches: []model.Kind{model.KindPod}, New: Disabled("").New}
	s2, err := NewStepped(SteppedConfig{Store: storetest.Store(t), Controllers: []ControllerSpec{Disabled(model.EndpointsController), pods}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s2.Close)
	if names, _ := s2.StandIns(model.EndpointsController); len(names) != 1 || names[0] != "pod-watcher" {
		t.Errorf("StandIns(endpoints) = %v, want pod-watcher", names)
	}
	_, err = NewStepped(SteppedConfig{Store: storetest.Store(t), Controllers: []ControllerSpec{Disabled(model.EndpointsController), Disabled(model.EndpointsController)}})
	if err == nil || !strings.Contains(err.Error(), "two ControllerSpecs") {
		t.Errorf("two specs of one name: %v", err)
	}
}

// TestLastReconcileKeepsTheControllersAnswer: the error a user's
// controller returned is kept with its key, and the key is retried.
func TestLastReconcileKeepsTheControllersAnswer(t *testing.T) {
	boom := errors.New(`replicasets.apps "x" already exists`)
	spec := ControllerSpec{Name: "failer", Watches: []model.Kind{model.KindDeployment},
		New: func(ControllerEnv) controller.Reconciler {
			return userController(func(context.Context, controller.Request) (controller.Result, error) { return controller.Result{}, boom })
		}}
	s, err := NewStepped(SteppedConfig{Store: storetest.Store(t), Controllers: []ControllerSpec{spec}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	mustStep(t, s, "apply web replicas=1 image=nginx:1")
	mustStep(t, s, "deliver failer deployments")
	mustStep(t, s, "reconcile failer default/web")
	out, ok := s.LastReconcile("failer", "default/web")
	if !ok || !errors.Is(out.Err, boom) || !out.Retry {
		t.Errorf("LastReconcile = %+v, %v; want the error, retried", out, ok)
	}
}
