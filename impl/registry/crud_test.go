package registry_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/impl/registry"
)

func TestCreateSetsSystemFieldsAndRejectsDuplicates(t *testing.T) {
	r, ctx := newRegistry(t)
	in := deployment("myapp", 3)
	in.Status.Replicas = 7 // a create takes no status
	d := mustCreate(t, ctx, r, in)

	if d.Namespace != "default" || d.Generation != 1 || d.UID == "" || !d.CreationTimestamp.Time.Equal(epoch) {
		t.Fatalf("system fields: ns %q gen %d uid %q created %v", d.Namespace, d.Generation, d.UID, d.CreationTimestamp)
	}
	if d.ResourceVersion == "" || d.Status.Replicas != 0 {
		t.Fatalf("rv %q, status.replicas %d; want an rv and an empty status", d.ResourceVersion, d.Status.Replicas)
	}
	if in.Namespace != "" || in.UID != "" || in.Status.Replicas != 7 {
		t.Fatal("Create mutated its input")
	}
	if d.Spec.Strategy.Type != api.RollingUpdateDeploymentStrategyType {
		t.Fatalf("not defaulted: strategy %q", d.Spec.Strategy.Type)
	}
	got, err := r.Get(ctx, "deployments", "", "myapp")
	if err != nil {
		t.Fatal(err)
	}
	if g := got.(*api.Deployment); g.UID != d.UID || g.ResourceVersion != d.ResourceVersion {
		t.Fatalf("get: uid %q rv %q, want %q %q", g.UID, g.ResourceVersion, d.UID, d.ResourceVersion)
	}
	other := mustCreate(t, ctx, r, deployment("other", 1))
	if other.UID == d.UID {
		t.Fatal("two objects share a uid")
	}

	_, err = r.Create(ctx, deployment("myapp", 1))
	wantReason(t, err, api.StatusReasonAlreadyExists, 409)

	withRV := deployment("fresh", 1)
	withRV.ResourceVersion = "5"
	_, err = r.Create(ctx, withRV)
	wantReason(t, err, api.StatusReasonBadRequest, 400)

	_, err = r.Get(ctx, "deployments", "default", "nope")
	wantReason(t, err, api.StatusReasonNotFound, 404)
}

func TestCreatePodStartsPendingAndNodeKeepsStatus(t *testing.T) {
	r, ctx := newRegistry(t)
	in := pod("p", nil)
	in.Status.Phase = api.PodRunning
	if p := mustCreate(t, ctx, r, in); p.Status.Phase != api.PodPending {
		t.Fatalf("pod phase %q, want Pending", p.Status.Phase)
	}
	if n := mustCreate(t, ctx, r, node("n1", api.ConditionTrue)); len(n.Status.Conditions) != 1 {
		t.Fatalf("node lost its status on create: %+v", n.Status)
	}
}

func TestGenerateNameIsDeterministicAndNeverReused(t *testing.T) {
	r, ctx := newRegistry(t)
	gen := func() string {
		t.Helper()
		p := pod("", map[string]string{"app": "web"})
		p.GenerateName = "web-"
		return mustCreate(t, ctx, r, p).Name
	}
	for i, want := range []string{"web-0", "web-1", "web-2"} {
		if got := gen(); got != want {
			t.Fatalf("generated name %d = %q, want %q", i, got, want)
		}
	}
	if _, err := r.Delete(ctx, "pods", "default", "web-2", api.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	mustCreate(t, ctx, r, pod("web-3", nil)) // taken by name: skipped
	if got := gen(); got != "web-4" {
		t.Fatalf("after a delete and a create-by-name got %q, want web-4", got)
	}
	// Another namespace has its own counter.
	mustCreate(t, ctx, r, namespace("team"))
	p := pod("", nil)
	p.Namespace, p.GenerateName = "team", "web-"
	if got := mustCreate(t, ctx, r, p).Name; got != "web-0" {
		t.Fatalf("first name in namespace team = %q, want web-0", got)
	}
}

func TestGenerateNameTooLongIsInvalid(t *testing.T) {
	r, ctx := newRegistry(t)
	before := rev(t, ctx, r)
	// A service name is a DNS-1035 label (63 characters at most): the prefix
	// passes alone, the prefix plus "0" does not.
	s := service("")
	s.GenerateName = strings.Repeat("a", 62) + "-"
	_, err := r.Create(ctx, s)
	wantReason(t, err, api.StatusReasonInvalid, 422)
	if after := rev(t, ctx, r); after != before {
		t.Fatalf("revision moved %d -> %d on a failed create", before, after)
	}
}

func TestUpdateCompareAndSwapAndLastWriteWins(t *testing.T) {
	r, ctx := newRegistry(t)
	d := mustCreate(t, ctx, r, deployment("myapp", 3))

	stale := api.DeepCopy(d)
	d.Spec.Replicas = int32p(4)
	up, err := r.Update(ctx, d)
	if err != nil {
		t.Fatal(err)
	}
	u := up.(*api.Deployment)
	if u.ResourceVersion == d.ResourceVersion || *u.Spec.Replicas != 4 {
		t.Fatalf("update: rv %q (was %q), replicas %d", u.ResourceVersion, d.ResourceVersion, *u.Spec.Replicas)
	}
	stale.Spec.Replicas = int32p(9)
	_, err = r.Update(ctx, stale)
	wantReason(t, err, api.StatusReasonConflict, 409)

	stale.ResourceVersion = "" // no precondition: last write wins
	up, err = r.Update(ctx, stale)
	if err != nil {
		t.Fatal(err)
	}
	if got := up.(*api.Deployment); *got.Spec.Replicas != 9 || got.UID != d.UID {
		t.Fatalf("unconditional update: replicas %d uid %q", *got.Spec.Replicas, got.UID)
	}

	missing := deployment("ghost", 1)
	_, err = r.Update(ctx, missing)
	wantReason(t, err, api.StatusReasonNotFound, 404)
}

func TestUpdateWithNoChangeStillWrites(t *testing.T) {
	r, ctx := newRegistry(t)
	d := mustCreate(t, ctx, r, deployment("myapp", 3))
	up, err := r.Update(ctx, d)
	if err != nil {
		t.Fatal(err)
	}
	if api.Meta(up).ResourceVersion == d.ResourceVersion {
		t.Fatal("a no-op update kept the resourceVersion; the model writes, so must the registry")
	}
}

// TestUpdateWithNoChangeWritesNothingForClients: the apiserver asks for
// kube-apiserver's way (SkipUnchanged): an update or a status update that
// changes nothing keeps the resourceVersion; one that changes something
// writes.
func TestUpdateWithNoChangeWritesNothingForClients(t *testing.T) {
	r, ctx := newRegistry(t)
	d := mustCreate(t, ctx, r, deployment("myapp", 3))
	ctx = registry.SkipUnchanged(ctx)
	up, err := r.Update(ctx, d)
	if err != nil || api.Meta(up).ResourceVersion != d.ResourceVersion {
		t.Fatalf("a no-op update answered %v, %v; want the stored object at %s", up, err, d.ResourceVersion)
	}
	st, err := r.UpdateStatus(ctx, d)
	if err != nil || api.Meta(st).ResourceVersion != d.ResourceVersion {
		t.Fatalf("a no-op status update answered %v, %v; want the stored object at %s", st, err, d.ResourceVersion)
	}
	d.Spec.Replicas = int32p(4)
	up, err = r.Update(ctx, d)
	if err != nil || api.Meta(up).ResourceVersion == d.ResourceVersion {
		t.Fatalf("a real update answered %v, %v; want a new resourceVersion", up, err)
	}
}

func TestGenerationBumpsOnlyOnSpecChange(t *testing.T) {
	r, ctx := newRegistry(t)
	mustCreate(t, ctx, r, deployment("myapp", 3))
	step := func(name string, change func(*api.Deployment), status bool, want int64) {
		t.Helper()
		cur, err := r.Get(ctx, "deployments", "default", "myapp")
		if err != nil {
			t.Fatal(err)
		}
		c := cur.(*api.Deployment)
		change(c)
		var out api.Object
		if status {
			out, err = r.UpdateStatus(ctx, c)
		} else {
			out, err = r.Update(ctx, c)
		}
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if g := api.Meta(out).Generation; g != want {
			t.Fatalf("%s: generation %d, want %d", name, g, want)
		}
	}
	step("label only", func(d *api.Deployment) { d.Labels["tier"] = "web" }, false, 1)
	step("scale", func(d *api.Deployment) { d.Spec.Replicas = int32p(5) }, false, 2)
	step("client lowers generation", func(d *api.Deployment) { d.Generation = 0 }, false, 2)
	step("status", func(d *api.Deployment) { d.Status.ObservedGeneration = 2 }, true, 2)
	step("image", func(d *api.Deployment) { d.Spec.Template.Spec.Containers[0].Image = "nginx:1.28" }, false, 3)
	step("defaults only", func(d *api.Deployment) { d.Spec.RevisionHistoryLimit = nil }, false, 3)
}

func TestStatusSubresourceIsolation(t *testing.T) {
	r, ctx := newRegistry(t)
	d := mustCreate(t, ctx, r, deployment("myapp", 3))

	// Update ignores status.
	d.Status.Replicas = 3
	d.Spec.Replicas = int32p(4)
	up, err := r.Update(ctx, d)
	if err != nil {
		t.Fatal(err)
	}
	u := up.(*api.Deployment)
	if u.Status.Replicas != 0 || *u.Spec.Replicas != 4 {
		t.Fatalf("update: status.replicas %d (want 0, ignored), spec.replicas %d", u.Status.Replicas, *u.Spec.Replicas)
	}

	// UpdateStatus ignores spec and metadata, but honours the rv precondition.
	u.Status.Replicas = 4
	u.Spec.Replicas = int32p(10)
	u.Labels = map[string]string{"changed": "yes"}
	st, err := r.UpdateStatus(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	s := st.(*api.Deployment)
	if s.Status.Replicas != 4 || *s.Spec.Replicas != 4 || s.Labels["changed"] != "" || s.Generation != 2 {
		t.Fatalf("status update: status %d spec %d labels %v gen %d", s.Status.Replicas, *s.Spec.Replicas, s.Labels, s.Generation)
	}
	_, err = r.UpdateStatus(ctx, u) // u's rv is now stale
	wantReason(t, err, api.StatusReasonConflict, 409)

	_, err = r.UpdateStatus(ctx, mustCreate(t, ctx, r, endpoints("myapp", "10.0.0.1")))
	wantReason(t, err, api.StatusReasonMethodNotAllowed, 405)
}

func TestValidationErrorsAre422AndWriteNothing(t *testing.T) {
	r, ctx := newRegistry(t)
	d := mustCreate(t, ctx, r, deployment("myapp", 3))
	before := rev(t, ctx, r)

	bad := deployment("Bad_Name", -1)
	_, err := r.Create(ctx, bad)
	wantReason(t, err, api.StatusReasonInvalid, 422)
	se := api.StatusOf(err)
	if se.Details == nil || len(se.Details.Causes) < 2 {
		t.Fatalf("want a cause per problem (name, replicas), got %+v", se.Details)
	}

	d.Spec.Selector = &api.LabelSelector{MatchLabels: map[string]string{"app": "other"}}
	_, err = r.Update(ctx, d)
	wantReason(t, err, api.StatusReasonInvalid, 422)

	d2, _ := r.Get(ctx, "deployments", "default", "myapp")
	api.Meta(d2).UID = "not-the-uid"
	_, err = r.Update(ctx, d2)
	wantReason(t, err, api.StatusReasonInvalid, 422)

	if after := rev(t, ctx, r); after != before {
		t.Fatalf("revision moved %d -> %d on failed writes", before, after)
	}
}

func TestNamespaces(t *testing.T) {
	r, ctx := newRegistry(t)
	p := pod("p", nil)
	p.Namespace = "kube-system"
	mustCreate(t, ctx, r, p)

	p = pod("p", nil)
	p.Namespace = "team"
	_, err := r.Create(ctx, p)
	wantReason(t, err, api.StatusReasonNotFound, 404)
	if msg := err.Error(); msg != `namespaces "team" not found` {
		t.Fatalf("message %q", msg)
	}
	if ns := mustCreate(t, ctx, r, namespace("team")); ns.Status.Phase != api.NamespaceActive {
		t.Fatalf("namespace phase %q", ns.Status.Phase)
	}
	mustCreate(t, ctx, r, p)

	_, err = r.Get(ctx, "nodes", "default", "n1")
	wantReason(t, err, api.StatusReasonBadRequest, 400)
	_, err = r.Get(ctx, "widgets", "", "x")
	wantReason(t, err, api.StatusReasonNotFound, 404)
}

func TestReturnedObjectsShareNoMemory(t *testing.T) {
	r, ctx := newRegistry(t)
	in := deployment("myapp", 3)
	d := mustCreate(t, ctx, r, in)
	d.Labels["x"] = "y"
	if in.Labels["x"] != "" {
		t.Fatal("the created object shares its labels with the input")
	}
	a, _ := r.Get(ctx, "deployments", "default", "myapp")
	b, _ := r.Get(ctx, "deployments", "default", "myapp")
	api.Meta(a).Labels["x"] = "y"
	if api.Meta(b).Labels["x"] != "" {
		t.Fatal("two Gets share memory")
	}
}

// TestEveryKindRoundTrips runs create, get, update, list and delete over
// each stored kind.
func TestEveryKindRoundTrips(t *testing.T) {
	cases := []struct {
		resource, ns string
		obj          api.Object
		change       func(api.Object)
		wantGen      int64 // after change
	}{
		{"deployments", "default", deployment("d", 1), func(o api.Object) { o.(*api.Deployment).Spec.Replicas = int32p(2) }, 2},
		{"replicasets", "default", replicaSet("rs"), func(o api.Object) { o.(*api.ReplicaSet).Spec.Replicas = int32p(3) }, 2},
		{"pods", "default", pod("p", nil), func(o api.Object) { o.(*api.Pod).Spec.Containers[0].Image = "nginx:2" }, 2},
		{"nodes", "", node("n", api.ConditionTrue), func(o api.Object) { o.(*api.Node).Spec.Unschedulable = true }, 2},
		{"services", "default", service("s"), func(o api.Object) { api.Meta(o).Labels = map[string]string{"a": "b"} }, 1},
		{"endpoints", "default", endpoints("s", "10.0.0.1"), func(o api.Object) { o.(*api.Endpoints).Subsets[0].Addresses[0].IP = "10.0.0.2" }, 1},
		{"namespaces", "", namespace("ns1"), func(o api.Object) { api.Meta(o).Labels = map[string]string{"a": "b"} }, 1},
	}
	for _, c := range cases {
		t.Run(c.resource, func(t *testing.T) {
			r, ctx := newRegistry(t)
			created, err := r.Create(ctx, c.obj)
			if err != nil {
				t.Fatal(err)
			}
			name := api.Meta(c.obj).Name
			got, err := r.Get(ctx, c.resource, c.ns, name)
			if err != nil {
				t.Fatal(err)
			}
			if api.Meta(got).ResourceVersion != api.Meta(created).ResourceVersion || api.TypeOf(got).Kind == "" {
				t.Fatalf("get: rv %q kind %q", api.Meta(got).ResourceVersion, api.TypeOf(got).Kind)
			}
			c.change(got)
			up, err := r.Update(ctx, got)
			if err != nil {
				t.Fatal(err)
			}
			if g := api.Meta(up).Generation; g != c.wantGen {
				t.Fatalf("generation %d, want %d", g, c.wantGen)
			}
			list, err := r.List(ctx, c.resource, c.ns, registry.ListOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if items := api.Items(list); len(items) != 1 || api.Meta(items[0]).ResourceVersion != api.Meta(up).ResourceVersion {
				t.Fatalf("list: %d items", len(items))
			}
			del, err := r.Delete(ctx, c.resource, c.ns, name, api.DeleteOptions{})
			if err != nil {
				t.Fatal(err)
			}
			upRV, _ := strconv.ParseInt(api.Meta(up).ResourceVersion, 10, 64)
			delRV, _ := strconv.ParseInt(api.Meta(del).ResourceVersion, 10, 64)
			if delRV <= upRV {
				t.Fatalf("deleted object rv %d, want the deletion's revision (> %d)", delRV, upRV)
			}
			if ns, ok := del.(*api.Namespace); ok { // a delete only marks it: finalize it as its controller does
				ns.Spec.Finalizers = nil
				if _, err := r.FinalizeNamespace(ctx, ns); err != nil {
					t.Fatal(err)
				}
			}
			_, err = r.Get(ctx, c.resource, c.ns, name)
			wantReason(t, err, api.StatusReasonNotFound, 404)
		})
	}
}
