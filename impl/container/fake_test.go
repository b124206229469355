package container_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/converge-dev/converge/impl/container"
	"github.com/converge-dev/converge/impl/container/containertest"
)

func TestFakeConformance(t *testing.T) {
	host := container.NewFakeHost(newClock().now)
	containertest.RunConformance(t,
		func(t *testing.T, node string) container.Runtime {
			f := host.Node(node)
			f.RemoveImage(containertest.MissingImage)
			return f
		},
		func(id string) {
			if err := host.Crash(id, container.ExitSIGKILL); err != nil {
				t.Errorf("crash %s: %v", id, err)
			}
		})
}

// clock is a logical clock that ticks one second per reading.
type clock struct{ t time.Time }

func newClock() *clock { return &clock{t: time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)} }

func (c *clock) now() time.Time {
	c.t = c.t.Add(time.Second)
	return c.t
}

var ctx = context.Background()

func echoSpec(id string) container.ContainerSpec {
	return container.ContainerSpec{ID: id, PodNamespace: "default", PodName: "echo-0", PodUID: "u1", Name: "app", Image: "converge.local/echo:v1", PodIP: "127.0.0.2", Ports: []int{8080}}
}

func TestFakeImagePresence(t *testing.T) {
	for _, tc := range []struct {
		name    string
		setup   func(f *container.Fake)
		image   string
		present bool
	}{
		{"any image by default", func(*container.Fake) {}, "nginx", true},
		{"removed image", func(f *container.Fake) { f.RemoveImage("nginx") }, "nginx", false},
		{"other image after a remove", func(f *container.Fake) { f.RemoveImage("nginx") }, "redis", true},
		{"added image", func(f *container.Fake) { f.AddImage("nginx") }, "nginx", true},
		{"not added once restricted", func(f *container.Fake) { f.AddImage("nginx") }, "redis", false},
		{"re-added after remove", func(f *container.Fake) { f.RemoveImage("nginx"); f.AddImage("nginx") }, "nginx", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := container.NewFake("n1", nil)
			tc.setup(f)
			if got := f.HasImage(tc.image); got != tc.present {
				t.Fatalf("HasImage(%s) = %v", tc.image, got)
			}
			sp := echoSpec("c1")
			sp.Image = tc.image
			st, err := f.Start(ctx, sp)
			if tc.present != (err == nil) {
				t.Fatalf("start: %v", err)
			}
			if !tc.present && (!errors.Is(err, container.ErrImageNotPresent) || st.State != container.StateWaiting || st.Reason != container.ReasonErrImagePull) {
				t.Fatalf("missing image: %+v, %v", st, err)
			}
		})
	}
}

func TestFakeImagesArePerNode(t *testing.T) {
	h := container.NewFakeHost(nil)
	h.Node("a").AddImage("x")
	if !h.Node("a").HasImage("x") || h.Node("a").HasImage("y") || !h.Node("b").HasImage("y") {
		t.Fatal("image sets leaked between nodes")
	}
}

func TestFakeExits(t *testing.T) {
	for _, tc := range []struct {
		name     string
		env      []container.EnvVar
		act      func(f *container.Fake, id string) error
		code     int
		reason   string
		finished time.Time // clock reads: start at 00:00:01, the exit at 00:00:02
	}{
		{"stop honours SIGTERM", nil, func(f *container.Fake, id string) error { return f.Stop(ctx, id, 30*time.Second) },
			0, container.ReasonCompleted, at(2)},
		{"stop with no grace kills", nil, func(f *container.Fake, id string) error { return f.Stop(ctx, id, 0) },
			137, container.ReasonError, at(2)},
		{"stop of a SIGTERM-ignoring process waits out grace", []container.EnvVar{{Name: container.IgnoreSIGTERMEnv, Value: "1"}},
			func(f *container.Fake, id string) error { return f.Stop(ctx, id, 30*time.Second) }, 137, container.ReasonError, at(32)},
		{"ignore flag other than 1 is not set", []container.EnvVar{{Name: container.IgnoreSIGTERMEnv, Value: "true"}},
			func(f *container.Fake, id string) error { return f.Stop(ctx, id, 30*time.Second) }, 0, container.ReasonCompleted, at(2)},
		{"crash with code", nil, func(f *container.Fake, id string) error { return f.Crash(id, 3) }, 3, container.ReasonError, at(2)},
		{"crash with zero completes", nil, func(f *container.Fake, id string) error { return f.Crash(id, 0) }, 0, container.ReasonCompleted, at(2)},
		{"oom kill", nil, func(f *container.Fake, id string) error { return f.OOMKill(id) }, 137, container.ReasonOOMKilled, at(2)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := container.NewFake("n1", newClock().now)
			sp := echoSpec("c1")
			sp.Env = tc.env
			if _, err := f.Start(ctx, sp); err != nil {
				t.Fatal(err)
			}
			if err := tc.act(f, "c1"); err != nil {
				t.Fatal(err)
			}
			st, err := f.Status(ctx, "c1")
			if err != nil {
				t.Fatal(err)
			}
			want := container.ContainerStatus{ID: "c1", Node: "n1", PodNamespace: "default", PodName: "echo-0", PodUID: "u1", Name: "app",
				Image: "converge.local/echo:v1", PodIP: "127.0.0.2", State: container.StateExited, ExitCode: tc.code, Reason: tc.reason, StartedAt: at(1), FinishedAt: tc.finished}
			if st != want {
				t.Fatalf("status = %+v\nwant     %+v", st, want)
			}
		})
	}
}

func at(sec int) time.Time { return time.Date(2024, 1, 1, 0, 0, sec, 0, time.UTC) }

func TestFakeInjectionErrors(t *testing.T) {
	f := container.NewFake("n1", nil)
	if _, err := f.Start(ctx, echoSpec("c1")); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		err  error
		want error
	}{
		{"crash unknown", f.Crash("nope", 1), container.ErrNotFound},
		{"oom unknown", f.OOMKill("nope"), container.ErrNotFound},
		{"crash other node's", f.Host().Node("n2").Crash("c1", 1), container.ErrNotFound},
		{"first crash", f.Crash("c1", 1), nil},
		{"crash exited", f.Crash("c1", 2), container.ErrNotRunning},
		{"host crash exited", f.Host().Crash("c1", 2), container.ErrNotRunning},
		{"host crash unknown", f.Host().Crash("nope", 2), container.ErrNotFound},
	} {
		if !errors.Is(tc.err, tc.want) || (tc.want == nil) != (tc.err == nil) {
			t.Errorf("%s: err = %v, want %v", tc.name, tc.err, tc.want)
		}
	}
	if st, _ := f.Status(ctx, "c1"); st.ExitCode != 1 {
		t.Fatalf("a refused crash changed the exit code: %+v", st)
	}
}

func TestFakeSurvivesKubeletRestart(t *testing.T) {
	h := container.NewFakeHost(nil)
	for _, id := range []string{"b", "a"} {
		if _, err := h.Node("n1").Start(ctx, echoSpec(id)); err != nil {
			t.Fatal(err)
		}
	}
	// A new kubelet asks the host for its node again and adopts by listing.
	list, err := h.Node("n1").List(ctx)
	if err != nil || len(list) != 2 || list[0].ID != "a" || list[1].ID != "b" {
		t.Fatalf("adopted %+v (err %v)", list, err)
	}
	if h.Node("n1") != h.Node("n1") {
		t.Fatal("Node returned different runtimes for one node")
	}
	if n := h.WipeNode("n1"); n != 2 {
		t.Fatalf("wiped %d", n)
	}
	if list, _ := h.Node("n1").List(ctx); len(list) != 0 {
		t.Fatalf("after wipe: %+v", list)
	}
}

func TestFakeKeepsItsOwnCopyOfTheSpec(t *testing.T) {
	f := container.NewFake("n1", nil)
	sp := echoSpec("c1")
	sp.Args = []string{"-x"}
	sp.Env = []container.EnvVar{{Name: "A", Value: "1"}}
	if _, err := f.Start(ctx, sp); err != nil {
		t.Fatal(err)
	}
	sp.Args[0], sp.Env[0].Value, sp.Ports[0] = "changed", "changed", 1
	got, err := f.Spec("c1")
	if err != nil {
		t.Fatal(err)
	}
	if got.Args[0] != "-x" || got.Env[0].Value != "1" || got.Ports[0] != 8080 || got.Node != "n1" {
		t.Fatalf("stored spec follows the caller's slices: %+v", got)
	}
	if _, err := f.Spec("nope"); !errors.Is(err, container.ErrNotFound) {
		t.Fatalf("spec of unknown: %v", err)
	}
}

func TestFakeLogIsDeterministic(t *testing.T) {
	run := func() []string {
		h := container.NewFakeHost(newClock().now)
		f := h.Node("n1")
		f.RemoveImage("gone")
		missing := echoSpec("m")
		missing.Image = "gone"
		f.Start(ctx, echoSpec("c1"))
		f.Start(ctx, missing)
		f.Crash("c1", 2)
		f.Stop(ctx, "c1", time.Second)
		f.Remove(ctx, "c1")
		return h.Log()
	}
	want := []string{
		"n1 start c1 image=converge.local/echo:v1",
		"n1 start m ErrImagePull",
		"n1 crash c1 exit=2",
		"n1 remove c1",
	}
	if got := run(); !slices.Equal(got, want) || !slices.Equal(run(), got) {
		t.Fatalf("log = %q\nwant  %q", got, want)
	}
}

func TestFakeHonoursCancelledContext(t *testing.T) {
	f := container.NewFake("n1", nil)
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := f.Start(cancelled, echoSpec("c1")); !errors.Is(err, context.Canceled) {
		t.Fatalf("start: %v", err)
	}
	if list, _ := f.List(ctx); len(list) != 0 {
		t.Fatalf("a cancelled start stored %+v", list)
	}
}

func TestProcessEnv(t *testing.T) {
	sp := echoSpec("c1")
	sp.Env = []container.EnvVar{{Name: "POD_IP", Value: "override"}, {Name: "X", Value: "y"}}
	got := fmt.Sprint(container.ProcessEnv(sp))
	want := "[{POD_NAME echo-0} {POD_NAMESPACE default} {POD_IP 127.0.0.2} {PORT 8080} {POD_IP override} {X y}]"
	if got != want {
		t.Fatalf("env = %s\nwant  %s", got, want)
	}
	sp.Ports = nil
	if env := container.ProcessEnv(sp); slices.ContainsFunc(env, func(e container.EnvVar) bool { return e.Name == "PORT" }) {
		t.Fatalf("PORT without ports: %v", env)
	}
}

func TestValidate(t *testing.T) {
	long := make([]byte, 77)
	for i := range long {
		long[i] = 'a'
	}
	for _, tc := range []struct {
		id string
		ok bool
	}{
		{"default_myapp-7d9f-0_app_1", true},
		{"a.b", true},
		{"", false},
		{"-a", false},
		{"a__b", false},
		{"a/b", false},
		{string(long[:76]), true},
		{string(long), false},
	} {
		sp := echoSpec(tc.id)
		got, err := sp.Validate("n1")
		if tc.ok != (err == nil) || (err != nil && !errors.Is(err, container.ErrInvalidSpec)) {
			t.Errorf("Validate(id %q) = %v", tc.id, err)
		}
		if tc.ok && got.Node != "n1" {
			t.Errorf("Validate did not fill the node: %+v", got)
		}
	}
	sp := echoSpec("c1")
	sp.Attempt = -1
	if _, err := sp.Validate("n1"); !errors.Is(err, container.ErrInvalidSpec) {
		t.Errorf("negative attempt: %v", err)
	}
}

// Version moves with every change to a node's containers, and only with
// those: a caller that keeps a list while it stays sees every change.
func TestFakeVersionMovesWithEveryChange(t *testing.T) {
	h := container.NewFakeHost(nil)
	n1, n2 := h.Node("n1"), h.Node("n2")
	last := n1.Version()
	step := func(what string, changes bool, do func() error) {
		t.Helper()
		if err := do(); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		v := n1.Version()
		if moved := v != last; moved != changes {
			t.Fatalf("%s: version moved %v, want %v", what, moved, changes)
		}
		last = v
	}
	step("start", true, func() error { _, err := n1.Start(ctx, echoSpec("a")); return err })
	step("start again", false, func() error { _, err := n1.Start(ctx, echoSpec("a")); return err })
	step("list", false, func() error { _, err := n1.List(ctx); return err })
	step("another node's start", false, func() error { _, err := n2.Start(ctx, echoSpec("b")); return err })
	step("crash", true, func() error { return h.Crash("a", 1) })
	step("stop an exited container", false, func() error { return n1.Stop(ctx, "a", 0) })
	step("remove", true, func() error { return n1.Remove(ctx, "a") })
	step("start", true, func() error { _, err := n1.Start(ctx, echoSpec("c")); return err })
	step("stop", true, func() error { return n1.Stop(ctx, "c", time.Second) })
	step("start", true, func() error { _, err := n1.Start(ctx, echoSpec("d")); return err })
	step("oom kill", true, func() error { return n1.OOMKill("d") })
	step("wipe", true, func() error { h.WipeNode("n1"); return nil })
}
