package cluster

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/converge-dev/converge/impl/container"
	"github.com/converge-dev/converge/impl/controller"
	"github.com/converge-dev/converge/impl/store"
	"github.com/converge-dev/converge/model"
	"github.com/converge-dev/converge/traces"
)

// RunningConfig configures a running cluster.
type RunningConfig struct {
	Store *store.Store
	// Nodes is the number of nodes to register at start (node-1..node-N).
	Nodes int
	// Tick is the period of heartbeats and of the node lifecycle checks;
	// the logical clock (seconds, starting at the wall clock) advances by
	// one per tick. Default 1s, so it follows the wall clock.
	Tick time.Duration
	// Runtime gives each node's container runtime. Default: in-memory fakes.
	Runtime func(node string) container.Runtime
	// Controllers replace or add components (see ControllerSpec).
	Controllers []ControllerSpec
	// Log hears one line per step that wrote something, as it happens;
	// heartbeats only with LogHeartbeats (every node, every tick, they
	// drown the flow).
	Log           func(line string)
	LogHeartbeats bool
	// OnStep, if set, hears every step that wrote something or failed,
	// heartbeats included, as it happens, with the store revisions of its
	// writes: steps run concurrently and may be heard out of causal order,
	// which a listener can restore from those revisions (converge demo
	// does).
	OnStep func(a model.Action, res model.Result)
	// Events reports what the components do as core/v1 Events (kubectl
	// describe, kubectl get events), each kept for EventTTL (default
	// DefaultEventTTL). Off by default: the writes cost time.
	Events   bool
	EventTTL time.Duration
	// Trace, if set, records every step that wrote something as a trace
	// event. The running driver's order is best-effort: steps run
	// concurrently, and each event's digest is of a snapshot taken just
	// after it.
	Trace *traces.Writer
}

// Running is the control plane with every component in goroutines: real
// watches, real work queues with rate-limited retries, and real timers.
// It runs the same component code as Stepped.
type Running struct {
	*Stepped
	cfg RunningConfig
	wg  sync.WaitGroup

	traceMu sync.Mutex
	seq     int

	// lastWriteAt is when a step other than a heartbeat last wrote
	// (UnixNano): WaitConverged puts off its forced snapshots while the
	// cluster is being written.
	lastWriteAt atomic.Int64
}

// StartRunning starts every component and registers cfg.Nodes nodes.
func StartRunning(cfg RunningConfig) (*Running, error) {
	if cfg.Tick <= 0 {
		cfg.Tick = time.Second
	}
	s, err := newCore(SteppedConfig{Store: cfg.Store, Runtime: cfg.Runtime, Controllers: cfg.Controllers}, false)
	if err != nil {
		return nil, err
	}
	r := &Running{Stepped: s, cfg: cfg}
	s.logical.Store(time.Now().Unix())
	if cfg.Events {
		if cfg.EventTTL <= 0 {
			cfg.EventTTL = DefaultEventTTL
		}
		rec := newEventRecorder(s.env.client)
		s.env.events = rec
		r.wg.Add(1)
		go func() { defer r.wg.Done(); rec.run(s.ctx, cfg.EventTTL) }()
	}
	s.start = r.startRunning
	for _, n := range s.controlPlane() {
		if err := s.addComponent(n); err != nil {
			r.Close()
			return nil, err
		}
	}
	for i := 1; i <= cfg.Nodes; i++ {
		if err := r.bootNode(fmt.Sprintf("node-%d", i)); err != nil {
			r.Close()
			return nil, err
		}
	}
	r.wg.Add(1)
	go r.ticker()
	return r, nil
}

// bootNode registers a node, or, after a restart on a store that already
// has it, boots its machine and starts its kubelet and kube-proxy again:
// the kubelet then adopts or restarts the pods bound to it.
func (r *Running) bootNode(name string) error {
	existing, _ := (&host{env: r.env, ctx: r.ctx}).Live(model.Ref{Kind: model.KindNode, Name: name}).(*model.Node)
	if existing == nil {
		return r.Apply(model.Action{Op: model.OpAddNode, Who: name}).Err
	}
	r.env.nodes.addAt(name, existing.Index)
	for _, c := range []string{model.KubeletName(name), model.ProxyName(name)} {
		if err := r.addComponent(c); err != nil {
			return err
		}
	}
	return nil
}

// Apply performs a user action (or a fault such as node-down).
func (r *Running) Apply(a model.Action) model.Result {
	if !a.Op.IsUser() && a.Op != model.OpNodeDown && a.Op != model.OpNodeUp {
		return model.Result{Err: fmt.Errorf("%w: %s is not a user action in running mode", model.ErrNotEnabled, a)}
	}
	res := r.Step(a)
	r.logStep(a, res)
	if a.Op == model.OpAddNode && res.Err == nil && r.env.events != nil {
		r.env.events.registered(r.ctx, a.Who)
	}
	return res
}

// Close stops every goroutine and waits for them.
func (r *Running) Close() {
	r.Stepped.Close()
	r.wg.Wait()
}

func (r *Running) logStep(a model.Action, res model.Result) {
	if len(res.Writes) == 0 && res.Err == nil {
		return
	}
	if a.Op != model.OpHeartbeat && slices.ContainsFunc(res.Writes, func(w model.Write) bool { return w.Err == nil }) {
		r.lastWriteAt.Store(time.Now().UnixNano())
	}
	if r.cfg.OnStep != nil {
		r.cfg.OnStep(a, res)
	}
	if r.cfg.Log != nil && (a.Op != model.OpHeartbeat || r.cfg.LogHeartbeats || res.Err != nil) {
		r.cfg.Log(model.FormatStep(a, res)) // formatted only for a listener
	}
	if r.cfg.Trace == nil {
		return
	}
	r.traceMu.Lock()
	defer r.traceMu.Unlock()
	r.seq++
	e := traces.FromStep(r.seq, a, res, r.Seen(a.Actor()), r.Snapshot())
	e.Time = time.Now().UTC().Format(time.RFC3339Nano)
	if err := r.cfg.Trace.Write(e); err != nil {
		r.report(fmt.Errorf("cluster: trace: %w", err))
	}
}

// startRunning attaches a component to the shared informers, fills its
// memory from their caches and starts one worker.
func (r *Running) startRunning(c *component) error {
	run := func(inf *controller.Informer) {
		r.wg.Add(1)
		go func() {
			defer r.wg.Done()
			_ = inf.Run(r.ctx)
		}()
	}
	for _, k := range c.kinds {
		inf, err := r.env.sharedInformer(c.ctx, k, run)
		if err != nil {
			return err
		}
		c.watch(k, inf) // before the rebuild: no event falls between
	}
	c.rebuild(c.ctx)
	c.mu.Lock()
	c.seen = 0
	c.mu.Unlock()
	workers := workersOf(c)
	r.wg.Add(1 + workers)
	go func() { defer r.wg.Done(); c.drain() }()
	for range workers {
		go r.work(c)
	}
	return nil
}

// schedulerWorkers is how many pods the running scheduler binds at once.
// Each decides under the component's lock and binds without it
// (writer.unlocked), counting the pods in flight on their nodes
// (writer.assume), as upstream's scheduler binds in goroutines of its own;
// with one, binding a thousand pods one at a time was the running
// driver's bottleneck, and with four, once pods came in batches. The
// stepped driver reconciles one key at a time.
const schedulerWorkers = 16

// workersOf is the number of workers of a component: several for the
// model's scheduler, one for the rest (a user's code is not assumed to be
// safe to run concurrently).
func workersOf(c *component) int {
	if c.name == model.Scheduler && c.user == nil {
		return schedulerWorkers
	}
	return 1
}

// work is one of a component's workers: one key at a time, as client-go's;
// the queue never hands a key to two workers at once.
func (r *Running) work(c *component) {
	defer r.wg.Done()
	go func() { <-c.ctx.Done(); c.queue.ShutDown() }()
	for {
		key, shutdown := c.queue.Get(c.ctx)
		if shutdown {
			return
		}
		c.mu.Lock()
		down := c.down
		c.mu.Unlock()
		if down {
			c.queue.AddAfter(key, r.cfg.Tick/4) // a partitioned node does nothing
			c.queue.Done(key)
			continue
		}
		a := model.Action{Op: model.OpReconcile, Who: c.name, Key: key}
		writes := c.reconcile(c.ctx, key, 0)
		if len(writes) == 0 && c.name == model.Scheduler && c.user == nil && r.env.events != nil {
			r.env.events.failedScheduling(c, key, r.env.nodes.cpuFullNodes())
		}
		r.logStep(a, model.Result{Writes: writes})
	}
}

// ticker advances the clock: kubelets heart-beat, then the clock ticks and
// the node lifecycle controller rechecks every node, as a tick action does
// in the model.
func (r *Running) ticker() {
	defer r.wg.Done()
	t := time.NewTicker(r.cfg.Tick)
	defer t.Stop()
	for {
		select {
		case <-r.ctx.Done():
			return
		case <-t.C:
		}
		// Every live kubelet reports before the logical clock moves on, so
		// a slow machine (ours, under load) never looks like a dead node:
		// only node-down stops heartbeats.
		for _, node := range r.liveNodes() {
			ctx, cancel := r.wait()
			a := model.Action{Op: model.OpHeartbeat, Who: node}
			r.logStep(a, model.Result{Writes: r.heartbeat(ctx, node)})
			cancel()
		}
		r.logical.Add(1)
		r.mu.Lock()
		nlc := r.comps[model.NodeLifecycle]
		r.mu.Unlock()
		if nlc != nil {
			nlc.mu.Lock()
			for _, n := range nlc.mem.List(model.KindNode) {
				nlc.queue.Add(model.MetaOf(n).Name)
			}
			nlc.mu.Unlock()
		}
	}
}

// liveNodes lists the nodes whose kubelet is up.
func (r *Running) liveNodes() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, n := range r.names {
		if node := model.NodeOf(n); node != "" && n == model.KubeletName(node) {
			c := r.comps[n]
			c.mu.Lock()
			if !c.down {
				out = append(out, node)
			}
			c.mu.Unlock()
		}
	}
	return out
}

// ErrNotConverged is returned by WaitConverged when ctx ends first.
var ErrNotConverged = errors.New("cluster: not converged")

// WaitConverged polls the projected state until model.Converged holds.
// While some component has work queued or events unapplied the state is
// still moving, so a poll skips the snapshot (a list of everything, costly
// with thousands of pods, and taken from the CPU the components need); so
// does the first idle poll after a busy one, since a watch event may still
// be on its way. A snapshot is taken anyway a second after the call, then
// at doubling intervals up to maxForcedSnapshotGap, so that a component
// that never goes idle cannot keep a converged state from being seen, and
// a long busy flow pays for few snapshots that cannot yet converge. One
// that falls due while components are still writing waits for a pause in
// the writes (writingQuiet), or until it is maxForcedSnapshotGap late.
func (r *Running) WaitConverged(ctx context.Context, poll time.Duration) (*model.Snapshot, error) {
	var snap *model.Snapshot
	err := errors.New("no snapshot taken")
	gap := time.Second
	next := time.Now().Add(gap) // the next forced snapshot
	idle := 0                   // polls in a row that found every component idle
	ticker := time.NewTicker(poll)
	defer ticker.Stop()
	for {
		if r.busy() {
			idle = 0
		} else {
			idle++
		}
		now := time.Now()
		forced := !now.Before(next)
		if forced && now.Sub(time.Unix(0, r.lastWriteAt.Load())) < writingQuiet && now.Sub(next) < maxForcedSnapshotGap {
			// Still being written: a snapshot now, a listing of every
			// object, would find the writes unfinished. It waits for a
			// pause in the writes, or for the longest gap.
			forced = false
		}
		if idle >= 2 || forced {
			if forced {
				gap = min(2*gap, maxForcedSnapshotGap)
			}
			snap = r.Snapshot()
			if err = model.Converged(snap); err == nil {
				return snap, nil
			}
			next = time.Now().Add(gap)
		}
		select {
		case <-ctx.Done():
			if snap == nil { // never idle, and ended before the first forced snapshot
				snap = r.Snapshot()
				if err = model.Converged(snap); err == nil {
					return snap, nil
				}
			}
			return snap, fmt.Errorf("%w: %v", ErrNotConverged, err)
		case <-ticker.C:
		}
	}
}

// maxForcedSnapshotGap bounds how long WaitConverged goes without a
// snapshot while some component stays busy.
const maxForcedSnapshotGap = 8 * time.Second

// writingQuiet is how long a cluster must have made no write, heartbeats
// aside, for WaitConverged to take a forced snapshot before its time is
// maxForcedSnapshotGap past due. A flow of 10,000 pods writes every 60 µs.
const writingQuiet = 50 * time.Millisecond

// busy reports whether any component has keys ready to reconcile or being
// reconciled, or events not yet applied, or whether an informer has yet to
// hear of a write: with every queue empty, the events of the last writes
// were still on their way, and a snapshot then found a ReplicaSet's status
// not yet updated, at the cost of a listing of every object.
func (r *Running) busy() bool {
	if r.env.eventsPending() {
		return true
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, c := range r.comps {
		c.inboxMu.Lock()
		pending := len(c.inbox)
		c.inboxMu.Unlock()
		c.mu.Lock()
		q := c.queue
		c.mu.Unlock()
		if pending > 0 || q.Busy() {
			return true
		}
	}
	return false
}

// Idle says whether every component has nothing queued or in hand and
// every event applied, as WaitConverged's polls ask: a harness that
// steps something of its own beside the running control plane waits for
// both to be quiet.
func (r *Running) Idle() bool { return !r.busy() }

// LastWrite is when a component last wrote, heartbeats aside (zero if
// none has).
func (r *Running) LastWrite() time.Time {
	if n := r.lastWriteAt.Load(); n != 0 {
		return time.Unix(0, n)
	}
	return time.Time{}
}
