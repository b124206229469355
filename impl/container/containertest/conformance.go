package containertest

import (
	"fmt"
	"sort"
	"sync/atomic"
	"testing"
	"time"

	"github.com/converge-dev/converge/impl/container"
	"github.com/converge-dev/converge/impl/image"
)

// Images the suite uses. The runtimes under test must have Image present and
// MissingImage absent.
const (
	Image        = image.EchoImage
	MissingImage = "converge.local/missing:v0"
)

// Port is the port every echo container of the suite listens on; each gets
// its own 127.77.x.y address, so they never clash.
const Port = 18080

// pollDeadline bounds how long the suite waits for an asynchronous effect.
const pollDeadline = 20 * time.Second

var (
	runs      atomic.Int64 // distinguishes RunConformance calls in one process
	addresses atomic.Int64 // hands out pod IPs
)

// NewRuntime returns the runtime of node. Runtimes made for different nodes
// within one test must share a backend, so each sees only its own node's
// containers of a common store.
type NewRuntime func(t *testing.T, node string) container.Runtime

// Option adapts the suite to a runtime.
type Option func(*suite)

// WithReadiness makes the suite wait, after starting a container whose
// signal handling it tests, until ready returns. A real process is not
// ready at once: a SIGTERM that arrives before it installs its handler
// kills it with another code. HTTPReady suits the echo image. Without this
// option containers are ready as soon as Start returns, as in the fake.
func WithReadiness(ready func(t *testing.T, spec container.ContainerSpec)) Option {
	return func(s *suite) { s.ready = ready }
}

// RunConformance runs the suite. crash must kill the container's process as
// `kill -9` would (exit code 137), or as close as the runtime can model.
func RunConformance(t *testing.T, newRuntime NewRuntime, crash func(id string), opts ...Option) {
	s := &suite{run: fmt.Sprintf("r%d", runs.Add(1)), newRuntime: newRuntime, crash: crash}
	for _, o := range opts {
		o(s)
	}
	for _, tc := range []struct {
		name string
		test func(t *testing.T, s *suite)
	}{
		{"StartStatusList", testStartStatusList},
		{"ListFiltersByNode", testListFiltersByNode},
		{"StartIsIdempotent", testStartIsIdempotent},
		{"InvalidSpec", testInvalidSpec},
		{"StopHonoursSIGTERM", testStopHonoursSIGTERM},
		{"StopKillsAfterGrace", testStopKillsAfterGrace},
		{"StopIsIdempotent", testStopIsIdempotent},
		{"CrashShowsExitCode", testCrashShowsExitCode},
		{"RemoveAfterCrash", testRemoveAfterCrash},
		{"Remove", testRemove},
		{"MissingImage", testMissingImage},
	} {
		t.Run(tc.name, func(t *testing.T) { tc.test(t, s) })
	}
}

func testStartStatusList(t *testing.T, s *suite) {
	rt, node := s.runtime(t, "n")
	var specs []container.ContainerSpec
	for _, name := range []string{"c", "a", "b"} {
		sp := spec(node, name)
		sp.Attempt = len(specs)
		specs = append(specs, sp)
		st := mustStart(t, rt, sp)
		checkIdentity(t, st, sp)
		if st.State != container.StateRunning || st.StartedAt.IsZero() || st.ExitCode != 0 || st.Reason != "" {
			t.Fatalf("after start: %+v", st)
		}
	}
	for _, sp := range specs {
		st := mustStatus(t, rt, sp.ID)
		checkIdentity(t, st, sp)
		if st.State != container.StateRunning {
			t.Fatalf("status of %s: %+v", sp.ID, st)
		}
	}
	list, err := rt.List(ctxFor(t))
	if err != nil {
		t.Fatal(err)
	}
	got := ids(list)
	want := []string{specs[1].ID, specs[2].ID, specs[0].ID}
	if fmt.Sprint(got) != fmt.Sprint(want) || !sort.StringsAreSorted(got) {
		t.Fatalf("list = %v, want %v", got, want)
	}
}

func testListFiltersByNode(t *testing.T, s *suite) {
	a, nodeA := s.runtime(t, "a")
	b, nodeB := s.runtime(t, "b")
	onA := spec(nodeA, "x")
	onB1, onB2 := spec(nodeB, "y"), spec(nodeB, "x")
	for _, c := range []struct {
		rt container.Runtime
		sp container.ContainerSpec
	}{{a, onA}, {b, onB1}, {b, onB2}} {
		mustStart(t, c.rt, c.sp)
	}
	listA, err := a.List(ctxFor(t))
	if err != nil {
		t.Fatal(err)
	}
	listB, err := b.List(ctxFor(t))
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(listA); fmt.Sprint(got) != fmt.Sprint([]string{onA.ID}) {
		t.Fatalf("node a lists %v", got)
	}
	if got := ids(listB); fmt.Sprint(got) != fmt.Sprint([]string{onB2.ID, onB1.ID}) {
		t.Fatalf("node b lists %v", got)
	}
	for _, c := range listB {
		if c.Node != nodeB {
			t.Fatalf("node b lists %s of node %s", c.ID, c.Node)
		}
	}
	_, err = a.Status(ctxFor(t), onB1.ID)
	wantErr(t, err, container.ErrNotFound, "status of another node's container")
	wantErr(t, a.Stop(ctxFor(t), onB1.ID, time.Second), container.ErrNotFound, "stop of another node's container")
	wantErr(t, a.Remove(ctxFor(t), onB1.ID), container.ErrNotFound, "remove of another node's container")
	if st := mustStatus(t, b, onB1.ID); st.State != container.StateRunning {
		t.Fatalf("another node's calls touched %s: %+v", onB1.ID, st)
	}
}

func testStartIsIdempotent(t *testing.T, s *suite) {
	rt, node := s.runtime(t, "n")
	other, _ := s.runtime(t, "o")
	sp := spec(node, "app")
	first := mustStart(t, rt, sp)
	again := mustStart(t, rt, sp)
	checkIdentity(t, again, sp)
	if again.State != container.StateRunning || !again.StartedAt.Equal(first.StartedAt) {
		t.Fatalf("second start = %+v, first = %+v", again, first)
	}
	changed := sp
	changed.Attempt = 1
	_, err := rt.Start(ctxFor(t), changed)
	wantErr(t, err, container.ErrExists, "start of a used id with another attempt")
	onOther := sp
	onOther.Node = ""
	_, err = other.Start(ctxFor(t), onOther)
	wantErr(t, err, container.ErrExists, "start of a used id on another node")
	list, err := rt.List(ctxFor(t))
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 || list[0].Attempt != 0 {
		t.Fatalf("list after repeated starts = %+v", list)
	}
}

func testInvalidSpec(t *testing.T, s *suite) {
	rt, node := s.runtime(t, "n")
	for name, mutate := range map[string]func(*container.ContainerSpec){
		"empty id":     func(sp *container.ContainerSpec) { sp.ID = "" },
		"id with /":    func(sp *container.ContainerSpec) { sp.ID = "a/b" },
		"other node":   func(sp *container.ContainerSpec) { sp.Node = "elsewhere" },
		"no name":      func(sp *container.ContainerSpec) { sp.Name = "" },
		"no image":     func(sp *container.ContainerSpec) { sp.Image = "" },
		"bad port":     func(sp *container.ContainerSpec) { sp.Ports = []int{70000} },
		"bad pod ip":   func(sp *container.ContainerSpec) { sp.PodIP = "not-an-ip" },
		"bad env name": func(sp *container.ContainerSpec) { sp.Env = []container.EnvVar{{Name: "A=B"}} },
	} {
		sp := spec(node, "bad")
		mutate(&sp)
		_, err := rt.Start(ctxFor(t), sp)
		wantErr(t, err, container.ErrInvalidSpec, name)
	}
	list, err := rt.List(ctxFor(t))
	if err != nil || len(list) != 0 {
		t.Fatalf("invalid specs left %v (err %v)", ids(list), err)
	}
}

func testStopHonoursSIGTERM(t *testing.T, s *suite) {
	rt, node := s.runtime(t, "n")
	sp := spec(node, "app")
	started := s.startReady(t, rt, sp)
	if err := rt.Stop(ctxFor(t), sp.ID, 15*time.Second); err != nil {
		t.Fatal(err)
	}
	st := mustStatus(t, rt, sp.ID)
	checkIdentity(t, st, sp)
	if st.State != container.StateExited || st.ExitCode != 0 || st.Reason != container.ReasonCompleted {
		t.Fatalf("after stop: %+v", st)
	}
	if st.FinishedAt.IsZero() || st.FinishedAt.Before(started.StartedAt) || !st.StartedAt.Equal(started.StartedAt) {
		t.Fatalf("times after stop: started %v, finished %v (start said %v)", st.StartedAt, st.FinishedAt, started.StartedAt)
	}
	list, err := rt.List(ctxFor(t))
	if err != nil || len(list) != 1 || list[0].State != container.StateExited {
		t.Fatalf("an exited container must stay listed until removed: %+v (err %v)", list, err)
	}
}

func testStopKillsAfterGrace(t *testing.T, s *suite) {
	rt, node := s.runtime(t, "n")
	sp := spec(node, "stubborn")
	sp.Env = []container.EnvVar{{Name: container.IgnoreSIGTERMEnv, Value: "1"}}
	s.startReady(t, rt, sp)
	if err := rt.Stop(ctxFor(t), sp.ID, 300*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	st := mustStatus(t, rt, sp.ID)
	if st.State != container.StateExited || st.ExitCode != container.ExitSIGKILL || st.Reason != container.ReasonError {
		t.Fatalf("a process ignoring SIGTERM must be killed after grace: %+v", st)
	}
}

func testStopIsIdempotent(t *testing.T, s *suite) {
	rt, node := s.runtime(t, "n")
	sp := spec(node, "app")
	s.startReady(t, rt, sp)
	if err := rt.Stop(ctxFor(t), sp.ID, 15*time.Second); err != nil {
		t.Fatal(err)
	}
	first := mustStatus(t, rt, sp.ID)
	for i := 0; i < 2; i++ {
		if err := rt.Stop(ctxFor(t), sp.ID, 0); err != nil {
			t.Fatalf("stop of an exited container: %v", err)
		}
	}
	if again := mustStatus(t, rt, sp.ID); !sameStatus(again, first) {
		t.Fatalf("repeated stop changed the status: %+v -> %+v", first, again)
	}
	wantErr(t, rt.Stop(ctxFor(t), node+"_never_0", time.Second), container.ErrNotFound, "stop of an unknown id")
}

func testCrashShowsExitCode(t *testing.T, s *suite) {
	rt, node := s.runtime(t, "n")
	sp := spec(node, "app")
	s.startReady(t, rt, sp)
	s.crash(sp.ID)
	st := waitState(t, rt, sp.ID, container.StateExited)
	checkIdentity(t, st, sp)
	if st.ExitCode != container.ExitSIGKILL || st.Reason != container.ReasonError || st.FinishedAt.IsZero() {
		t.Fatalf("after kill -9: %+v", st)
	}
	if err := rt.Stop(ctxFor(t), sp.ID, time.Second); err != nil {
		t.Fatalf("stop after crash: %v", err)
	}
	if after := mustStatus(t, rt, sp.ID); after.ExitCode != container.ExitSIGKILL || after.State != container.StateExited {
		t.Fatalf("stop after crash lost the exit code: %+v", after)
	}
	if err := rt.Remove(ctxFor(t), sp.ID); err != nil {
		t.Fatalf("remove after crash: %v", err)
	}
}

func testRemoveAfterCrash(t *testing.T, s *suite) {
	rt, node := s.runtime(t, "n")
	sp := spec(node, "app")
	s.startReady(t, rt, sp)
	s.crash(sp.ID)
	waitState(t, rt, sp.ID, container.StateExited)
	if err := rt.Remove(ctxFor(t), sp.ID); err != nil {
		t.Fatalf("remove of a crashed container: %v", err)
	}
	_, err := rt.Status(ctxFor(t), sp.ID)
	wantErr(t, err, container.ErrNotFound, "status after remove")
}

func testRemove(t *testing.T, s *suite) {
	rt, node := s.runtime(t, "n")
	sp, keep := spec(node, "app"), spec(node, "keep")
	s.startReady(t, rt, sp)
	s.startReady(t, rt, keep)
	wantErr(t, rt.Remove(ctxFor(t), sp.ID), container.ErrRunning, "remove of a running container")
	if st := mustStatus(t, rt, sp.ID); st.State != container.StateRunning {
		t.Fatalf("a refused remove changed the container: %+v", st)
	}
	if err := rt.Stop(ctxFor(t), sp.ID, 15*time.Second); err != nil {
		t.Fatal(err)
	}
	if err := rt.Remove(ctxFor(t), sp.ID); err != nil {
		t.Fatal(err)
	}
	_, err := rt.Status(ctxFor(t), sp.ID)
	wantErr(t, err, container.ErrNotFound, "status after remove")
	wantErr(t, rt.Remove(ctxFor(t), sp.ID), container.ErrNotFound, "second remove")
	list, err := rt.List(ctxFor(t))
	if err != nil || fmt.Sprint(ids(list)) != fmt.Sprint([]string{keep.ID}) {
		t.Fatalf("list after remove = %v (err %v)", ids(list), err)
	}
	// The id is free again: the same container can be started anew.
	if st := s.startReady(t, rt, sp); st.State != container.StateRunning {
		t.Fatalf("restart after remove: %+v", st)
	}
}

func testMissingImage(t *testing.T, s *suite) {
	rt, node := s.runtime(t, "n")
	sp := spec(node, "app")
	sp.Image = MissingImage
	st, err := rt.Start(ctxFor(t), sp)
	wantErr(t, err, container.ErrImageNotPresent, "start with a missing image")
	checkIdentity(t, st, sp)
	if st.State != container.StateWaiting || st.Reason != container.ReasonErrImagePull {
		t.Fatalf("status for a missing image: %+v", st)
	}
	_, err = rt.Status(ctxFor(t), sp.ID)
	wantErr(t, err, container.ErrNotFound, "status after a failed pull")
	list, err := rt.List(ctxFor(t))
	if err != nil || len(list) != 0 {
		t.Fatalf("a failed pull left %v (err %v)", ids(list), err)
	}
}
