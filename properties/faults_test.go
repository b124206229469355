package properties

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/converge-dev/converge/impl/cluster"
	"github.com/converge-dev/converge/impl/store"
	"github.com/converge-dev/converge/impl/store/storetest"
	"github.com/converge-dev/converge/model"
)

// faultRun drives a Pair with scripted actions; any lockstep failure fails
// the test. Every assertion about a component reads both sides.
type faultRun struct {
	t *testing.T
	p *Pair
}

func newFaultRun(t *testing.T, st *store.Store) *faultRun {
	t.Helper()
	s, err := cluster.NewStepped(cluster.SteppedConfig{Store: st})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return &faultRun{t: t, p: NewPair(model.Config{}, s)}
}

// do applies script lines; it returns the last one's results.
func (f *faultRun) do(lines ...string) Results {
	f.t.Helper()
	var r Results
	for _, l := range lines {
		a, err := model.ParseAction(l)
		if err != nil {
			f.t.Fatal(err)
		}
		r = f.step(a)
	}
	return r
}

func (f *faultRun) step(a model.Action) Results {
	f.t.Helper()
	r, err := f.p.Step(a)
	if err != nil {
		f.t.Fatalf("%v\n%s", err, f.p.Script)
	}
	if r.Impl.Err != nil {
		f.t.Fatalf("%s: %v\n%s", a, r.Impl.Err, f.p.Script)
	}
	return r
}

// settle runs enabled component steps, in the model's order, except those
// skip rejects, until none is left. It returns the writes made.
func (f *faultRun) settle(skip func(model.Action) bool) []model.Write {
	f.t.Helper()
	var writes []model.Write
	for i := 0; ; i++ {
		if i > 2000 {
			f.t.Fatalf("settle did not finish\n%s", f.p.Script)
		}
		var next *model.Action
		for _, a := range f.p.Model.EnabledSteps() {
			if skip == nil || !skip(a) {
				next = &a
				break
			}
		}
		if next == nil {
			return writes
		}
		writes = append(writes, f.step(*next).Impl.Writes...)
	}
}

// seen is a component's event count; both sides must agree.
func (f *faultRun) seen(component string) int {
	f.t.Helper()
	m, s := f.p.Model.Seen(component), f.p.Impl.Seen(component)
	if m != s {
		f.t.Fatalf("Seen(%s): model %d, impl %d", component, m, s)
	}
	return s
}

// queue is a component's queue; both sides must agree.
func (f *faultRun) queue(component string) []string {
	f.t.Helper()
	m, s := f.p.Model.Queue(component), f.p.Impl.Queue(component)
	if fmt.Sprint(m) != fmt.Sprint(s) {
		f.t.Fatalf("Queue(%s): model %v, impl %v", component, m, s)
	}
	return s
}

// enabledFor lists the enabled steps of one component (same on both sides:
// Step checks it).
func (f *faultRun) enabledFor(component string) []string {
	var out []string
	for _, a := range f.p.Impl.EnabledSteps() {
		if a.Who == component {
			out = append(out, a.String())
		}
	}
	return out
}

func (f *faultRun) snapshot() *model.Snapshot { return f.p.Impl.Snapshot() }

func (f *faultRun) pods() []*model.Pod {
	var out []*model.Pod
	for _, o := range f.snapshot().List(model.KindPod) {
		out = append(out, o.(*model.Pod))
	}
	return out
}

func (f *faultRun) node(name string) *model.Node {
	n, _ := f.snapshot().Objects[model.Ref{Kind: model.KindNode, Name: name}].(*model.Node)
	return n
}

// tickUntil ticks and settles (but for skip) until cond holds, at most max
// ticks.
func (f *faultRun) tickUntil(max int, what string, skip func(model.Action) bool, cond func() bool) {
	f.t.Helper()
	for i := 0; !cond(); i++ {
		if i == max {
			f.t.Fatalf("%s: not after %d ticks\n%s", what, max, f.p.Script)
		}
		f.do("tick")
		f.settle(skip)
	}
}

func onlyVerb(ws []model.Write, verb model.Verb, kind model.Kind) []model.Write {
	var out []model.Write
	for _, w := range ws {
		if w.Verb == verb && (w.Local != "" || w.Ref.Kind == kind) {
			out = append(out, w)
		}
	}
	return out
}

func storeRev(t *testing.T, st *store.Store) int64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	rev, err := st.Rev(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return rev
}

// Stale view: a held scheduler sees nothing new, and decides from its old
// view: it binds to a node everyone else already sees NotReady, and the
// binding is refused on both sides.
func TestFaultStaleView(t *testing.T) {
	f := newFaultRun(t, storetest.Store(t))
	schedulerReconciles := func(a model.Action) bool { return a.Op == model.OpReconcile && a.Who == model.Scheduler }
	f.do("add-node node-1", "add-node node-2", "apply web replicas=1 image=nginx:1")
	f.settle(schedulerReconciles)
	q := f.queue(model.Scheduler)
	if len(q) != 1 {
		t.Fatalf("scheduler queue %v, want the one pending pod", q)
	}
	pod := q[0]
	f.do("hold scheduler")
	held, lifecycle := f.seen(model.Scheduler), f.seen(model.NodeLifecycle)
	f.do("node-down node-1")
	f.tickUntil(10, "node-1 NotReady", schedulerReconciles, func() bool { return !f.node("node-1").Ready })
	if f.seen(model.Scheduler) != held {
		t.Fatalf("held scheduler's Seen moved from %d to %d", held, f.seen(model.Scheduler))
	}
	if f.seen(model.NodeLifecycle) <= lifecycle || len(f.enabledFor(model.Scheduler)) != 1 {
		t.Fatalf("the others did not move on (lifecycle Seen %d -> %d), or the scheduler has more than its reconcile: %v",
			lifecycle, f.seen(model.NodeLifecycle), f.enabledFor(model.Scheduler))
	}
	// Its view still has node-1 Ready and empty: node-1 wins the tie, and
	// only a stale choice of node-1 can be refused (node-2 is Ready).
	r := f.do("reconcile scheduler " + pod)
	for side, res := range map[string]model.Result{"model": r.Model, "impl": r.Impl} {
		if len(res.Writes) != 1 || res.Writes[0].Verb != model.VerbBind || !errors.Is(res.Writes[0].Err, model.ErrNodeNotReady) {
			t.Fatalf("%s: scheduler wrote %v, want one BIND refused with ErrNodeNotReady", side, res.Writes)
		}
	}
	f.do("release scheduler")
	f.settle(nil)
	if p := f.pods(); len(p) != 1 || p[0].NodeName != "node-2" {
		t.Fatalf("after release the pod is not on node-2: %+v", p)
	}
}

// Unobserved state: after a dropped watch (or a compaction) the component
// relists once and jumps over every intermediate state.
func TestFaultUnobservedStateAfterDropWatch(t *testing.T) {
	st := storetest.Store(t)
	f := newFaultRun(t, st)
	f.do("add-node node-1")
	f.settle(nil)
	rev, mrev := storeRev(t, st), f.p.Model.Rev()
	f.do("drop-watch deployment-controller", "apply web replicas=1 image=nginx:1")
	unobserved(t, f, st, rev, mrev, "scale web 2", "set-image web nginx:2")
}

func TestFaultUnobservedStateAfterCompaction(t *testing.T) {
	st := storetest.Isolated(t)
	f := newFaultRun(t, st)
	f.do("add-node node-1")
	f.settle(nil)
	rev, mrev := storeRev(t, st), f.p.Model.Rev()
	f.do("apply web replicas=1 image=nginx:1", "scale web 2", "compact")
	// The compaction is real: history below it is gone.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if ev := <-st.Watch(ctx, "deployments", "", rev); !errors.Is(ev.Err, store.ErrGone) {
		t.Fatalf("watch from revision %d after compact: %v, want ErrGone", rev, ev.Err)
	}
	unobserved(t, f, st, rev, mrev, "set-image web nginx:2")
}

// unobserved: the deployment controller's watch is broken and web was
// created at replicas=1 image nginx:1 since revision rev (model: mrev);
// after the more writes (3 in all), one relist sees only the last state.
func unobserved(t *testing.T, f *faultRun, st *store.Store, rev, mrev int64, more ...string) {
	t.Helper()
	const dc = model.DeploymentController
	if got := f.enabledFor(dc); fmt.Sprint(got) != "[relist "+dc+"]" {
		t.Fatalf("%s can only relist, got %v", dc, got)
	}
	f.do(more...)
	seen := f.seen(dc)
	r := f.do("relist " + dc)
	if got := f.seen(dc); got != seen+1 {
		t.Fatalf("Seen went %d -> %d, want one relist", seen, got)
	}
	if r.Impl.Delivered != "RELIST 1" {
		t.Fatalf("relist delivered %q", r.Impl.Delivered)
	}
	if d, md := storeRev(t, st)-rev, f.p.Model.Rev()-mrev; d < 3 || md != 3 {
		t.Fatalf("the store moved by %d revisions (model %d), want 3 writes", d, md)
	}
	// The states in between (replicas=1, nginx:1) were never seen: the
	// first ReplicaSet already has the final spec.
	creates := onlyVerb(f.do("reconcile "+dc+" web").Impl.Writes, model.VerbCreate, model.KindReplicaSet)
	if len(creates) != 1 {
		t.Fatalf("creates %v, want one ReplicaSet", creates)
	}
	if rs := creates[0].After.(*model.ReplicaSet); rs.Image != "nginx:2" || rs.Replicas != 2 {
		t.Fatalf("ReplicaSet %s image %s replicas %d, want the final nginx:2 x2", rs.Name, rs.Image, rs.Replicas)
	}
}

// Intermediate state: a crash after the first write leaves one pod of
// three; the queue is gone, so the next step is a relist; then the rest.
func TestFaultIntermediateState(t *testing.T) {
	const rc = model.ReplicaSetController
	f := newFaultRun(t, storetest.Store(t))
	f.do("add-node node-1", "apply web replicas=3 image=nginx:1")
	f.settle(func(a model.Action) bool { return a.Who == rc && a.Op == model.OpReconcile })
	q := f.queue(rc)
	if len(q) != 1 {
		t.Fatalf("%s queue %v, want the ReplicaSet", rc, q)
	}
	r := f.do("reconcile " + rc + " " + q[0] + " crash-after=1")
	if c := onlyVerb(r.Impl.Writes, model.VerbCreate, model.KindPod); len(c) != 1 || len(r.Impl.Writes) != 1 {
		t.Fatalf("writes %v, want exactly one pod created", r.Impl.Writes)
	}
	if len(f.pods()) != 1 {
		t.Fatalf("%d pods stored, want 1", len(f.pods()))
	}
	if q := f.queue(rc); len(q) != 0 {
		t.Fatalf("queue after the crash %v, want empty", q)
	}
	if got := f.enabledFor(rc); fmt.Sprint(got) != "[relist "+rc+"]" {
		t.Fatalf("after the crash %s can do %v, want only a relist", rc, got)
	}
	f.do("relist " + rc)
	r = f.do("reconcile " + rc + " " + q[0])
	if c := onlyVerb(r.Impl.Writes, model.VerbCreate, model.KindPod); len(c) != 2 {
		t.Fatalf("after the restart: %v, want the 2 missing pods", r.Impl.Writes)
	}
	f.settle(nil)
	if len(f.pods()) != 3 {
		t.Fatalf("%d pods, want 3", len(f.pods()))
	}
}

// Container crash: the kubelet restarts it; the pod reports restartCount 1,
// not ready, then ready.
func TestFaultContainerCrash(t *testing.T) {
	f := newFaultRun(t, storetest.Store(t))
	f.do("add-node node-1", "apply web replicas=1 image=nginx:1")
	f.settle(nil)
	p := f.pods()
	if len(p) != 1 || !p[0].Ready || p[0].Restarts != 0 {
		t.Fatalf("pods %+v, want one ready pod", p)
	}
	pod := model.KeyOf(p[0])
	f.do("crash-container node-1 " + pod)
	if c := f.snapshot().Containers; len(c) != 1 || c[0].Running || c[0].ExitCode == 0 {
		t.Fatalf("containers after the crash %+v, want one exited with an error", c)
	}
	if q := f.queue(model.KubeletName("node-1")); fmt.Sprint(q) != "["+pod+"]" {
		t.Fatalf("kubelet queue %v, want the crashed pod", q)
	}
	r := f.do("reconcile kubelet/node-1 " + pod)
	if s := onlyVerb(r.Impl.Writes, model.VerbRuntimeStart, 0); len(s) != 1 || s[0].Local != "containers/"+model.ContainerID("node-1", pod, 1) {
		t.Fatalf("kubelet wrote %v, want attempt 1 started", r.Impl.Writes)
	}
	if p := f.pods()[0]; p.Ready || p.Restarts != 1 || p.Phase != model.PhaseRunning {
		t.Fatalf("pod after the restart: ready %v restarts %d phase %s, want not ready, 1, Running", p.Ready, p.Restarts, p.Phase)
	}
	f.settle(nil)
	if p := f.pods()[0]; !p.Ready || p.Restarts != 1 {
		t.Fatalf("pod settled: ready %v restarts %d, want ready, 1", p.Ready, p.Restarts)
	}
}

// Node down and up: heartbeats stop, the node goes NotReady, its pods are
// evicted and replaced elsewhere; when it comes back the evicted
// containers are stopped.
func TestFaultNodeDownAndUp(t *testing.T) {
	f := newFaultRun(t, storetest.Store(t))
	f.do("add-node node-1", "add-node node-2", "apply web replicas=2 image=nginx:1")
	f.settle(nil)
	var lost string
	for _, p := range f.pods() {
		if p.NodeName == "node-1" {
			lost = model.KeyOf(p)
		}
	}
	if lost == "" {
		t.Fatalf("no pod on node-1: %+v", f.pods())
	}
	f.do("node-down node-1", "tick")
	for _, a := range f.p.Impl.EnabledSteps() {
		if a.Op == model.OpHeartbeat && a.Who == "node-1" {
			t.Fatal("node-1 still heart-beats while down")
		}
	}
	f.tickUntil(10, "node-1 NotReady", nil, func() bool { return !f.node("node-1").Ready })
	evicted := func() bool {
		for _, p := range f.pods() {
			if model.KeyOf(p) == lost {
				return p.Deleting
			}
		}
		return false
	}
	f.tickUntil(10, "eviction", nil, evicted)
	// The evicted pod stays (its kubelet is away) and a ready replacement
	// runs on node-2 next to the other replica.
	var onNode2 int
	for _, p := range f.pods() {
		if !p.Deleting && p.NodeName == "node-2" && p.Ready {
			onNode2++
		}
	}
	if n := len(f.pods()); n != 3 || onNode2 != 2 {
		t.Fatalf("after eviction: %d pods, %d ready on node-2; want the evicted one and 2 on node-2: %+v", n, onNode2, f.pods())
	}
	if !runningFor(f.snapshot(), lost) {
		t.Fatal("the partitioned node's container stopped before the node came back")
	}
	f.do("node-up node-1")
	f.settle(nil)
	if runningFor(f.snapshot(), lost) {
		t.Fatal("the evicted pod's container still runs after node-up")
	}
	for _, p := range f.pods() {
		if model.KeyOf(p) == lost {
			t.Fatalf("evicted pod %s still stored", lost)
		}
	}
	if !f.node("node-1").Ready {
		t.Fatal("node-1 not Ready after node-up")
	}
}

func runningFor(s *model.Snapshot, pod string) bool {
	for _, c := range s.Containers {
		if c.Pod == pod && c.Running {
			return true
		}
	}
	return false
}

// Kubelet restart: after a crash and relist it adopts the running
// containers; none is started twice.
func TestFaultKubeletRestartAdoptsContainers(t *testing.T) {
	const kl = "kubelet/node-1"
	f := newFaultRun(t, storetest.Store(t))
	f.do("add-node node-1", "apply web replicas=2 image=nginx:1")
	f.settle(nil)
	before := f.snapshot().Containers
	if len(before) != 2 || !before[0].Running || !before[1].Running {
		t.Fatalf("containers %+v, want 2 running", before)
	}
	f.do("crash " + kl)
	if q := f.queue(kl); len(q) != 0 || fmt.Sprint(f.enabledFor(kl)) != "[relist "+kl+"]" {
		t.Fatalf("after the crash: queue %v, steps %v", q, f.enabledFor(kl))
	}
	writes := f.do("relist " + kl).Impl.Writes
	if q := f.queue(kl); len(q) < 2 {
		t.Fatalf("after the relist the kubelet has %v to sync, want both pods", q)
	}
	writes = append(writes, f.settle(nil)...)
	if starts := onlyVerb(writes, model.VerbRuntimeStart, 0); len(starts) != 0 {
		t.Fatalf("restarted kubelet started containers again: %v", starts)
	}
	if after := f.snapshot().Containers; fmt.Sprint(after) != fmt.Sprint(before) {
		t.Fatalf("containers changed:\n before %+v\n after  %+v", before, after)
	}
}
