package cluster

import (
	"bytes"
	"context"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/converge-dev/converge/impl/store/storetest"
	"github.com/converge-dev/converge/model"
	"github.com/converge-dev/converge/traces"
)

func startRunning(t *testing.T, nodes int) *Running {
	t.Helper()
	r, err := StartRunning(RunningConfig{Store: storetest.Store(t), Nodes: nodes, Tick: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	return r
}

func (r *Running) mustApply(t *testing.T, line string) {
	t.Helper()
	a, err := model.ParseAction(line)
	if err != nil {
		t.Fatal(err)
	}
	if res := r.Apply(a); res.Err != nil {
		t.Fatalf("%s: %v", line, res.Err)
	}
}

// converge waits for convergence, checking the safety invariants on every
// snapshot it polls on the way.
func (r *Running) converge(t *testing.T, chk *model.Checker) *model.Snapshot {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	for {
		snap := r.Snapshot()
		// A running cluster's snapshot is not atomic (the store and the
		// machines are read one after the other), so while it moves only
		// the store's invariants are checked; at convergence, all of them.
		stored := *snap
		stored.Containers, stored.Rules = nil, nil
		if err := chk.Check(&stored, nil); err != nil {
			t.Fatal(err)
		}
		if model.Converged(snap) == nil {
			if err := chk.Check(snap, nil); err != nil {
				t.Fatal(err)
			}
			return snap
		}
		select {
		case <-ctx.Done():
			for _, l := range snap.Lines() {
				t.Log(l)
			}
			t.Fatalf("not converged: %v", model.Converged(snap))
		case <-time.After(20 * time.Millisecond):
		}
	}
}

func readyPods(s *model.Snapshot) int {
	n := 0
	for _, o := range s.List(model.KindPod) {
		if p := o.(*model.Pod); p.Ready && !p.Deleting {
			n++
		}
	}
	return n
}

func TestRunningSeedDeploymentConverges(t *testing.T) {
	r := startRunning(t, 3)
	chk := model.NewChecker()
	r.mustApply(t, "apply-service myapp app=myapp port=80")
	r.mustApply(t, "apply myapp replicas=3 image=nginx:1.27")
	if s := r.converge(t, chk); readyPods(s) != 3 {
		t.Fatalf("%d ready pods, want 3", readyPods(s))
	}
}

func TestRunningScaleUpAndDown(t *testing.T) {
	r := startRunning(t, 3)
	chk := model.NewChecker()
	r.mustApply(t, "apply myapp replicas=3 image=nginx:1.27")
	r.converge(t, chk)
	for _, n := range []int{10, 0} {
		r.mustApply(t, "scale myapp "+strconv.Itoa(n))
		if s := r.converge(t, chk); readyPods(s) != n {
			t.Fatalf("%d ready pods, want %d", readyPods(s), n)
		}
	}
}

// A replica set creates its pods in slow-start batches, several at once,
// and the scheduler places a burst of them evenly: it counts the pods it
// is binding on their nodes (assume) before their bindings come back.
func TestRunningSpreadsABurstOfPods(t *testing.T) {
	r := startRunning(t, 4)
	r.mustApply(t, "apply burst replicas=120 image=nginx:1")
	s := r.converge(t, model.NewChecker())
	perNode := map[string]int{}
	names := map[string]bool{}
	for _, o := range s.List(model.KindPod) {
		p := o.(*model.Pod)
		perNode[p.NodeName]++
		names[p.Name] = true
	}
	if len(names) != 120 || readyPods(s) != 120 {
		t.Fatalf("%d pods (%d ready), want 120", len(names), readyPods(s))
	}
	for node, n := range perNode {
		if n < 25 || n > 35 {
			t.Errorf("%s has %d pods, want about 30: %v", node, n, perNode)
		}
	}
}

func TestRunningRollingUpdateStaysWithinSurge(t *testing.T) {
	r := startRunning(t, 3)
	chk := model.NewChecker() // checks the surge bound on every poll
	r.mustApply(t, "apply myapp replicas=4 image=nginx:1 surge=1 unavailable=0")
	r.converge(t, chk)
	r.mustApply(t, "set-image myapp nginx:2")
	s := r.converge(t, chk)
	for _, o := range s.List(model.KindPod) {
		if p := o.(*model.Pod); p.Image != "nginx:2" {
			t.Errorf("pod %s still runs %s", p.Name, p.Image)
		}
	}
}

func TestRunningNodeDownEvictsAndReschedules(t *testing.T) {
	r := startRunning(t, 3)
	chk := model.NewChecker()
	r.mustApply(t, "apply myapp replicas=3 image=nginx:1")
	before := r.converge(t, chk)
	victim := ""
	for _, o := range before.List(model.KindPod) {
		victim = o.(*model.Pod).NodeName
		break
	}
	r.mustApply(t, "node-down "+victim)
	// Wait until no ready pod is left on the partitioned node and three
	// ready pods run elsewhere.
	deadline := time.Now().Add(60 * time.Second)
	for {
		s := r.Snapshot()
		elsewhere := 0
		for _, o := range s.List(model.KindPod) {
			if p := o.(*model.Pod); p.NodeName != victim && p.Ready && !p.Deleting {
				elsewhere++
			}
		}
		if elsewhere == 3 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("pods were not rescheduled off %s", victim)
		}
		time.Sleep(20 * time.Millisecond)
	}
	r.mustApply(t, "node-up "+victim)
	s := r.converge(t, chk)
	for _, c := range s.Containers {
		if c.Node == victim {
			t.Errorf("container %s survived its pod's eviction", c.ID)
		}
	}
}

func TestRunningDeleteCascades(t *testing.T) {
	r := startRunning(t, 2)
	chk := model.NewChecker()
	r.mustApply(t, "apply myapp replicas=3 image=nginx:1")
	r.converge(t, chk)
	r.mustApply(t, "delete deployments/myapp")
	s := r.converge(t, chk)
	for _, k := range []model.Kind{model.KindDeployment, model.KindReplicaSet, model.KindPod} {
		if n := len(s.List(k)); n != 0 {
			t.Errorf("%d %s left after the cascade", n, k.Resource())
		}
	}
	if len(s.Containers) != 0 {
		t.Errorf("%d containers left", len(s.Containers))
	}
}

func TestRunningRecordsATrace(t *testing.T) {
	var buf bytes.Buffer
	w := traces.NewWriter(&buf)
	r, err := StartRunning(RunningConfig{Store: storetest.Store(t), Nodes: 2, Tick: 20 * time.Millisecond, Trace: w})
	if err != nil {
		t.Fatal(err)
	}
	r.mustApply(t, "apply myapp replicas=2 image=nginx:1")
	r.converge(t, model.NewChecker())
	r.Close()
	events, err := traces.ReadAll(&buf)
	if err != nil {
		t.Fatal(err)
	}
	actors := map[string]bool{}
	for _, e := range events {
		actors[e.Actor] = true
	}
	for _, a := range []string{"user", model.DeploymentController, model.ReplicaSetController, model.Scheduler} {
		if !actors[a] {
			t.Errorf("no event from %s in %d events", a, len(events))
		}
	}
}

// The flow log leaves heartbeats out unless asked for them.
func TestRunningLogsHeartbeatsOnlyWhenAsked(t *testing.T) {
	for _, want := range []bool{false, true} {
		var mu sync.Mutex
		var lines []string
		r, err := StartRunning(RunningConfig{Store: storetest.Store(t), Nodes: 1, Tick: 10 * time.Millisecond, LogHeartbeats: want,
			Log: func(l string) { mu.Lock(); lines = append(lines, l); mu.Unlock() }})
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(100 * time.Millisecond)
		r.Close()
		mu.Lock()
		got := false
		for _, l := range lines {
			got = got || strings.Contains(l, ": heartbeat node-1")
		}
		mu.Unlock()
		if got != want {
			t.Fatalf("LogHeartbeats=%v: heartbeats logged %v in %q", want, got, lines)
		}
	}
}
