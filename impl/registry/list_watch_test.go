package registry_test

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/impl/registry"
	"github.com/converge-dev/converge/impl/store/storetest"
)

func names(l api.ListObject) []string {
	var out []string
	for _, o := range api.Items(l) {
		out = append(out, api.Meta(o).Name)
	}
	return out
}

func TestListSelectorsAndPages(t *testing.T) {
	r, ctx := newRegistry(t)
	mustCreate(t, ctx, r, node("n1", api.ConditionTrue))
	for i := range 6 {
		app := "web"
		if i%2 == 1 {
			app = "db"
		}
		mustCreate(t, ctx, r, pod(fmt.Sprintf("p%d", i), map[string]string{"app": app}))
	}
	if _, err := r.Bind(ctx, "default", "p2", "n1", ""); err != nil {
		t.Fatal(err)
	}
	mustCreate(t, ctx, r, namespace("team"))
	other := pod("p9", map[string]string{"app": "web"})
	other.Namespace = "team"
	mustCreate(t, ctx, r, other)

	list := func(ns string, o registry.ListOptions) api.ListObject {
		t.Helper()
		l, err := r.List(ctx, "pods", ns, o)
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	cases := []struct {
		ns   string
		opts registry.ListOptions
		want []string
	}{
		{"default", registry.ListOptions{}, []string{"p0", "p1", "p2", "p3", "p4", "p5"}},
		{"", registry.ListOptions{LabelSelector: "app=web"}, []string{"p0", "p2", "p4", "p9"}},
		{"default", registry.ListOptions{LabelSelector: "app in (db)"}, []string{"p1", "p3", "p5"}},
		{"", registry.ListOptions{FieldSelector: "metadata.name=p3"}, []string{"p3"}},
		{"", registry.ListOptions{FieldSelector: "spec.nodeName=n1"}, []string{"p2"}},
		{"default", registry.ListOptions{FieldSelector: "spec.nodeName==", LabelSelector: "app=web"}, []string{"p0", "p4"}},
		{"", registry.ListOptions{FieldSelector: "metadata.namespace!=default"}, []string{"p9"}},
	}
	for _, c := range cases {
		if got := names(list(c.ns, c.opts)); !slices.Equal(got, c.want) {
			t.Errorf("list %q %+v = %v, want %v", c.ns, c.opts, got, c.want)
		}
	}

	// Pages of 2 web pods: filled to the limit, continuing one snapshot.
	first := list("", registry.ListOptions{LabelSelector: "app=web", Limit: 2})
	if got := names(first); !slices.Equal(got, []string{"p0", "p2"}) || api.ListMetaOf(first).Continue == "" {
		t.Fatalf("page 1 = %v continue %q", got, api.ListMetaOf(first).Continue)
	}
	mustCreate(t, ctx, r, pod("p8", map[string]string{"app": "web"})) // after the snapshot
	second := list("", registry.ListOptions{LabelSelector: "app=web", Limit: 2, Continue: api.ListMetaOf(first).Continue})
	if got := names(second); !slices.Equal(got, []string{"p4", "p9"}) {
		t.Fatalf("page 2 = %v, want [p4 p9] from the first page's snapshot", got)
	}
	if api.ListMetaOf(second).ResourceVersion != api.ListMetaOf(first).ResourceVersion {
		t.Fatalf("pages at revisions %s and %s", api.ListMetaOf(first).ResourceVersion, api.ListMetaOf(second).ResourceVersion)
	}
	if c := api.ListMetaOf(second).Continue; c != "" {
		third := list("", registry.ListOptions{LabelSelector: "app=web", Limit: 2, Continue: c})
		if n := names(third); len(n) != 0 || api.ListMetaOf(third).Continue != "" {
			t.Fatalf("page 3 = %v continue %q, want empty and done", n, api.ListMetaOf(third).Continue)
		}
	}

	// Pages without selectors count what follows them, as kube-apiserver's
	// remainingItemCount; with selectors the count is left out.
	if n := api.ListMetaOf(first).RemainingItemCount; n != nil {
		t.Fatalf("a selected page counts %d remaining", *n)
	}
	plain := list("default", registry.ListOptions{Limit: 4})
	if n := api.ListMetaOf(plain).RemainingItemCount; n == nil || *n != 3 { // p4 p5 p8 of p0..p5, p8
		t.Fatalf("remainingItemCount %v, want 3", n)
	}
	last := list("default", registry.ListOptions{Limit: 4, Continue: api.ListMetaOf(plain).Continue})
	if n := api.ListMetaOf(last).RemainingItemCount; n != nil || len(api.Items(last)) != 3 {
		t.Fatalf("last page: %d items, remainingItemCount %v", len(api.Items(last)), n)
	}
	raw, _, err := r.ListRaw(ctx, "pods", "default", registry.ListOptions{Limit: 4})
	if err != nil || raw.ListMeta.RemainingItemCount == nil || *raw.ListMeta.RemainingItemCount != 3 {
		t.Fatalf("raw list: remainingItemCount %v, %v", raw.ListMeta.RemainingItemCount, err)
	}

	// A list at an older revision sees the older state.
	old := list("default", registry.ListOptions{ResourceVersion: api.ListMetaOf(first).ResourceVersion})
	if slices.Contains(names(old), "p8") {
		t.Fatal("a list at an older revision sees a later create")
	}

	for _, o := range []registry.ListOptions{
		{LabelSelector: "app in (web"}, {FieldSelector: "spec.image=x"}, {FieldSelector: "name"},
		{ResourceVersion: "abc"}, {Continue: "garbage"}, {Limit: -1},
	} {
		_, err := r.List(ctx, "pods", "", o)
		wantReason(t, err, api.StatusReasonBadRequest, 400)
	}
	_, err = r.List(ctx, "nodes", "", registry.ListOptions{FieldSelector: "spec.nodeName=n1"})
	wantReason(t, err, api.StatusReasonBadRequest, 400)
}

// next reads one event; the deadline only guards against a hang.
func next(t *testing.T, ch <-chan registry.ObjectEvent) registry.ObjectEvent {
	t.Helper()
	select {
	case ev, ok := <-ch:
		if !ok {
			t.Fatal("watch channel closed")
		}
		return ev
	case <-time.After(20 * time.Second):
		t.Fatal("no watch event")
	}
	return registry.ObjectEvent{}
}

func wantEvent(t *testing.T, ch <-chan registry.ObjectEvent, typ, name string) registry.ObjectEvent {
	t.Helper()
	ev := next(t, ch)
	if ev.Err != nil {
		t.Fatalf("event error: %v", ev.Err)
	}
	if ev.Type != typ || api.Meta(ev.Object).Name != name {
		t.Fatalf("got %s %s, want %s %s", ev.Type, api.Meta(ev.Object).Name, typ, name)
	}
	if api.Meta(ev.Object).ResourceVersion != strconv.FormatInt(ev.Rev, 10) {
		t.Fatalf("%s %s: object rv %s, event rev %d", typ, name, api.Meta(ev.Object).ResourceVersion, ev.Rev)
	}
	return ev
}

func TestWatchEvents(t *testing.T) {
	r, ctx := newRegistry(t)
	a := mustCreate(t, ctx, r, deployment("a", 1))
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ch, err := r.Watch(wctx, "deployments", "default", a.ResourceVersion)
	if err != nil {
		t.Fatal(err)
	}
	all, err := r.Watch(wctx, "deployments", "", "")
	if err != nil {
		t.Fatal(err)
	}
	wantEvent(t, all, registry.EventAdded, "a") // the current state first

	mustCreate(t, ctx, r, namespace("team"))
	b := deployment("b", 1)
	b.Namespace = "team" // not in the namespaced watch
	mustCreate(t, ctx, r, b)
	a.Spec.Replicas = int32p(2)
	up, err := r.Update(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	del, err := r.Delete(ctx, "deployments", "default", "a", api.DeleteOptions{})
	if err != nil {
		t.Fatal(err)
	}

	ev := wantEvent(t, ch, registry.EventModified, "a")
	if api.Meta(ev.Object).ResourceVersion != api.Meta(up).ResourceVersion || *ev.Object.(*api.Deployment).Spec.Replicas != 2 {
		t.Fatal("MODIFIED event does not carry the update")
	}
	ev = wantEvent(t, ch, registry.EventDeleted, "a")
	if api.Meta(ev.Object).ResourceVersion != api.Meta(del).ResourceVersion {
		t.Fatalf("DELETED at %s, delete returned %s", api.Meta(ev.Object).ResourceVersion, api.Meta(del).ResourceVersion)
	}
	wantEvent(t, all, registry.EventAdded, "b")
	wantEvent(t, all, registry.EventModified, "a")
	wantEvent(t, all, registry.EventDeleted, "a")

	cancel()
	for range ch { // drains and ends: cancelling closes the channel
	}

	_, err = r.Watch(ctx, "deployments", "", "nope")
	wantReason(t, err, api.StatusReasonBadRequest, 400)
	_, err = r.Watch(ctx, "nodes", "default", "")
	wantReason(t, err, api.StatusReasonBadRequest, 400)
}

func TestWatchFromCompactedRevisionIsExpired(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s := storetest.Isolated(t)
	r := registry.New(registry.Config{Store: s, Clock: func() time.Time { return epoch }})
	created := mustCreate(t, ctx, r, deployment("a", 1))
	for i := int32(2); i <= 3; i++ {
		d := api.DeepCopy(created)
		d.ResourceVersion, d.Spec.Replicas = "", int32p(i)
		if _, err := r.Update(ctx, d); err != nil {
			t.Fatal(err)
		}
	}
	// Compacting to the latest revision drops the first update, which a
	// watch from the create's revision would start with.
	if err := s.Compact(ctx, rev(t, ctx, r)); err != nil {
		t.Fatal(err)
	}
	ch, err := r.Watch(ctx, "deployments", "", created.ResourceVersion)
	if err != nil {
		t.Fatal(err)
	}
	ev := next(t, ch)
	if ev.Type != registry.EventError || !api.IsResourceExpired(ev.Err) || api.CodeOf(ev.Err) != 410 || ev.Object != nil {
		t.Fatalf("got %s %v, want ERROR 410 Expired", ev.Type, ev.Err)
	}
	if _, ok := <-ch; ok {
		t.Fatal("channel still open after the ERROR event")
	}
	_, err = r.List(ctx, "deployments", "", registry.ListOptions{ResourceVersion: created.ResourceVersion})
	wantReason(t, err, api.StatusReasonExpired, 410)
}
