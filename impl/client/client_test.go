package client_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/impl/client"
	"github.com/converge-dev/converge/impl/registry"
	"github.com/converge-dev/converge/impl/store/storetest"
	"github.com/converge-dev/converge/model"
)

func TestMain(m *testing.M) { storetest.Main(m) }

func setup(t *testing.T) (*registry.Registry, context.Context) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return registry.New(registry.Config{Store: storetest.Store(t), Clock: func() time.Time { return time.Unix(100, 0) }}), ctx
}

func pod(name string) *api.Pod {
	return &api.Pod{
		ObjectMeta: api.ObjectMeta{Name: name, Labels: map[string]string{"app": "web"}},
		Spec:       api.PodSpec{Containers: []api.Container{{Name: "web", Image: "nginx:1.27"}}},
	}
}

func readyNode(name string) *api.Node {
	return &api.Node{
		ObjectMeta: api.ObjectMeta{Name: name},
		Status:     api.NodeStatus{Conditions: []api.NodeCondition{{Type: api.NodeReady, Status: api.ConditionTrue}}},
	}
}

// exercise runs every verb once through c and returns the watch's event
// types.
func exercise(t *testing.T, ctx context.Context, c client.Client) []string {
	t.Helper()
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	w, err := c.Watch(wctx, "pods", "default", "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Create(ctx, readyNode("n1")); err != nil {
		t.Fatal(err)
	}
	p, err := c.Create(ctx, pod("p"))
	if err != nil {
		t.Fatal(err)
	}
	api.Meta(p).Labels["v"] = "2"
	if p, err = c.Update(ctx, p); err != nil {
		t.Fatal(err)
	}
	p.(*api.Pod).Status.Phase = api.PodRunning
	if p, err = c.UpdateStatus(ctx, p); err != nil {
		t.Fatal(err)
	}
	if _, err = c.Bind(ctx, "default", "p", "n1", api.Meta(p).ResourceVersion); err != nil {
		t.Fatal(err)
	}
	got, err := c.Get(ctx, "pods", "default", "p")
	if err != nil {
		t.Fatal(err)
	}
	if g := got.(*api.Pod); g.Spec.NodeName != "n1" || g.Status.Phase != api.PodRunning || g.Labels["v"] != "2" {
		t.Fatalf("pod after the writes: %+v", g)
	}
	l, err := c.List(ctx, "pods", "", client.ListOptions{FieldSelector: "spec.nodeName=n1"})
	if err != nil || len(api.Items(l)) != 1 {
		t.Fatalf("list: %v, %v", l, err)
	}
	if _, err := c.Delete(ctx, "pods", "default", "p", api.DeleteOptions{GracePeriodSeconds: new(int64)}); err != nil {
		t.Fatal(err)
	}
	var types []string
	for len(types) < 5 {
		select {
		case ev := <-w:
			if ev.Err != nil {
				t.Fatal(ev.Err)
			}
			types = append(types, ev.Type)
		case <-time.After(20 * time.Second):
			t.Fatalf("watch stalled after %v", types)
		}
	}
	return types
}

func TestLocalPassesEveryVerbThrough(t *testing.T) {
	r, ctx := setup(t)
	got := exercise(t, ctx, client.Local(r))
	want := []string{registry.EventAdded, registry.EventModified, registry.EventModified, registry.EventModified, registry.EventDeleted}
	if !slices.Equal(got, want) {
		t.Fatalf("watch saw %v, want %v", got, want)
	}
}

func TestCountingSeesEveryWriteAndNoRead(t *testing.T) {
	r, ctx := setup(t)
	var verbs []string
	c := client.Counting(client.Local(r), func(verb string) error {
		verbs = append(verbs, verb)
		return nil
	})
	exercise(t, ctx, c)
	want := []string{"CREATE", "CREATE", "UPDATE", "STATUS", "BIND", "DELETE"}
	if !slices.Equal(verbs, want) {
		t.Fatalf("hook saw %v, want %v", verbs, want)
	}
	for _, v := range []model.Verb{model.VerbCreate, model.VerbUpdate, model.VerbStatus, model.VerbBind, model.VerbDelete} {
		if !slices.Contains(verbs, string(v)) {
			t.Fatalf("verb %s is not the model's trace verb", v)
		}
	}
}

func TestCountingFailsTheWriteItRefuses(t *testing.T) {
	r, ctx := setup(t)
	crash := errors.New("crashed after 1 write")
	writes := 0
	c := client.Counting(client.Local(r), func(string) error {
		if writes++; writes > 1 {
			return crash
		}
		return nil
	})
	if _, err := c.Create(ctx, pod("a")); err != nil {
		t.Fatal(err)
	}
	before, err := r.Rev(ctx)
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Create(ctx, pod("b"))
	if !errors.Is(err, crash) {
		t.Fatalf("second write: %v, want the hook's error", err)
	}
	_, err = c.Delete(ctx, "pods", "default", "a", api.DeleteOptions{})
	if !errors.Is(err, crash) {
		t.Fatalf("delete: %v, want the hook's error", err)
	}
	if _, err := c.Get(ctx, "pods", "default", "a"); err != nil {
		t.Fatalf("reads go through after a crash: %v", err)
	}
	if after, _ := r.Rev(ctx); after != before {
		t.Fatalf("revision moved %d -> %d: a refused write was sent", before, after)
	}
	if _, err := r.Get(ctx, "pods", "default", "b"); !api.IsNotFound(err) {
		t.Fatalf("refused create of b reached the store: %v", err)
	}
}

// A finalize is a write, gated as an update (a PUT of the namespace).
func TestCountingGatesFinalize(t *testing.T) {
	r, ctx := setup(t)
	var verbs []string
	c := client.Counting(client.Local(r), func(verb string) error {
		verbs = append(verbs, verb)
		return nil
	})
	ns, err := c.Create(ctx, &api.Namespace{ObjectMeta: api.ObjectMeta{Name: "dev"}})
	if err != nil {
		t.Fatal(err)
	}
	ns.(*api.Namespace).Spec.Finalizers = nil
	if _, err := c.FinalizeNamespace(ctx, ns.(*api.Namespace)); err != nil {
		t.Fatal(err)
	}
	if want := []string{"CREATE", "UPDATE"}; !slices.Equal(verbs, want) {
		t.Fatalf("hook saw %v, want %v", verbs, want)
	}
	got, err := c.Get(ctx, "namespaces", "", "dev")
	if err != nil || len(got.(*api.Namespace).Spec.Finalizers) != 0 {
		t.Fatalf("namespace after finalize: %v, %v", got, err)
	}
}
