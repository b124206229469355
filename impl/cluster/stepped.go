package cluster

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/converge-dev/converge/impl/api"

	"github.com/converge-dev/converge/impl/client"
	"github.com/converge-dev/converge/impl/container"
	"github.com/converge-dev/converge/impl/controller"
	"github.com/converge-dev/converge/impl/project"
	"github.com/converge-dev/converge/impl/registry"
	"github.com/converge-dev/converge/impl/store"
	"github.com/converge-dev/converge/model"
)

// ErrTimeout is returned when etcd does not send an expected event in time.
var ErrTimeout = errors.New("cluster: timed out waiting for etcd")

// SteppedConfig configures a stepped cluster.
type SteppedConfig struct {
	// Store is the etcd-backed store (one key prefix per cluster).
	Store *store.Store
	// Decisions replaces components' shared decision code, as the model's
	// Config.Decisions does (tests and mutants only).
	Decisions model.Decisions
	// Timeout bounds each wait for etcd. Default 10s.
	Timeout time.Duration
	// Runtime gives each node's container runtime. Default: in-memory fakes.
	Runtime func(node string) container.Runtime
	// Controllers replace built-in components' decision code with a user's
	// controller, or add new components (see ControllerSpec).
	Controllers []ControllerSpec
	// Client, if set, is how components talk to the apiserver (for example
	// over HTTP); by default an in-process client over a registry on Store.
	Client client.Client
}

// Stepped is the control plane driven one model action at a time.
type Stepped struct {
	env     *env
	store   *store.Store
	ctx     context.Context
	cancel  context.CancelFunc
	timeout time.Duration
	// worldOff: EnabledFaults lists no world faults (DisableWorldFaults).
	worldOff bool
	logical  atomic.Int64             // the logical clock: seconds
	start    func(c *component) error // how a component starts: stepped or running
	users    map[string]*ControllerSpec

	// projections caches each resource's projection with the store's
	// fingerprint of that resource when it was taken.
	projections map[string]projectionCache

	mu    sync.Mutex // guards comps, names, errs and the cache (the running driver's goroutines read them)
	comps map[string]*component
	names []string
	errs  []error

	lastRetry string // whose failed key the last reconcile retried (model.RetryOrder)
}

// NewStepped starts a stepped cluster with the control-plane components
// and no nodes, like model.New.
func NewStepped(cfg SteppedConfig) (*Stepped, error) {
	s, err := newCore(cfg, true)
	if err != nil {
		return nil, err
	}
	for _, n := range s.controlPlane() {
		if err := s.addComponent(n); err != nil {
			s.Close()
			return nil, err
		}
	}
	return s, nil
}

// controlPlane is the built-in control plane plus the user's new components.
func (s *Stepped) controlPlane() []string {
	out := append([]string(nil), model.ControlPlane...)
	for name := range s.users {
		if model.WatchedKinds(name) == nil {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

// newCore builds a cluster without components; stepped selects how
// components run.
func newCore(cfg SteppedConfig, stepped bool) (*Stepped, error) {
	if cfg.Store == nil {
		return nil, errors.New("cluster: a Store is required")
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 10 * time.Second
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &Stepped{store: cfg.Store, ctx: ctx, cancel: cancel, timeout: cfg.Timeout, comps: map[string]*component{}, users: map[string]*ControllerSpec{},
		projections: map[string]projectionCache{}}
	for i := range cfg.Controllers {
		u := cfg.Controllers[i]
		if u.Name == "" || u.New == nil {
			cancel()
			return nil, errors.New("cluster: a ControllerSpec needs a Name and New")
		}
		if model.WatchedKinds(u.Name) == nil && len(u.Watches) == 0 {
			cancel()
			return nil, errors.New("cluster: new controller " + u.Name + " watches nothing")
		}
		if model.WatchedKinds(u.Name) == nil {
			if err := probeKeys(u); err != nil {
				cancel()
				return nil, err
			}
		}
		if s.users[u.Name] != nil {
			cancel()
			return nil, errors.New("cluster: two ControllerSpecs are named " + u.Name)
		}
		s.users[u.Name] = &u
	}
	c := cfg.Client
	if c == nil {
		c = client.Local(registry.New(registry.Config{Store: cfg.Store, Clock: s.clock}))
	}
	customs := c // every custom resource at once (store.AllCustom) is read in process
	if cfg.Client != nil {
		customs = client.Local(registry.New(registry.Config{Store: cfg.Store, Clock: s.clock}))
	}
	uids := project.NewUIDs()
	runtime := cfg.Runtime
	var fakes *container.FakeHost
	if runtime == nil {
		fakes = container.NewFakeHost(s.clock)
		runtime = func(node string) container.Runtime { return fakes.Node(node) }
	}
	s.env = &env{
		client: c, lw: listWatcher{c: c, customs: customs}, uids: uids, clock: controller.RealClock,
		now: s.logical.Load, decisions: cfg.Decisions,
		report:  s.report,
		stepped: stepped,
	}
	s.env.nodes = newNodes(uids, runtime)
	s.env.nodes.fakes = fakes
	s.start = s.startStepped
	return s, nil
}

func (s *Stepped) report(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.errs = append(s.errs, err)
}

// clock turns the logical clock into timestamps: second n of 1970.
func (s *Stepped) clock() time.Time { return time.Unix(s.logical.Load(), 0).UTC() }

// Close stops every watch.
func (s *Stepped) Close() { s.cancel() }

func (s *Stepped) wait() (context.Context, context.CancelFunc) {
	return context.WithTimeout(s.ctx, s.timeout)
}

// addComponent starts a component; it lists the store as it starts.
func (s *Stepped) addComponent(name string) error {
	user := s.users[name]
	if user == nil && model.NodeOf(name) != "" {
		user = s.users[strings.SplitN(name, "/", 2)[0]] // "kubelet" replaces every kubelet/NODE
	}
	c := newComponent(s.env, name, user)
	c.ctx, c.cancel = context.WithCancel(s.ctx)
	if err := s.start(c); err != nil {
		c.cancel()
		return fmt.Errorf("cluster: start %s: %w", name, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.comps[name] = c
	s.names = append(s.names, name)
	sort.Strings(s.names)
	return nil
}

func (s *Stepped) startStepped(c *component) error {
	for _, k := range c.kinds {
		c.watch(k, s.env.newInformer(k))
		if err := c.inf[k].Start(c.ctx); err != nil {
			return err
		}
	}
	c.rebuild(c.ctx)
	c.seen = 0
	return nil
}

func (s *Stepped) removeComponent(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c := s.comps[name]; c != nil {
		c.cancel()
	}
	delete(s.comps, name)
	for i, n := range s.names {
		if n == name {
			s.names = append(s.names[:i:i], s.names[i+1:]...)
			break
		}
	}
}

// Seen is the number of events delivered to a component so far.
func (s *Stepped) Seen(component string) int {
	s.mu.Lock()
	c := s.comps[component]
	s.mu.Unlock()
	if c == nil {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.seen
}

// LastReconcile is how component's latest reconcile of key ended; false
// if it never reconciled key.
func (s *Stepped) LastReconcile(component, key string) (Outcome, bool) {
	s.mu.Lock()
	c := s.comps[component]
	s.mu.Unlock()
	if c == nil {
		return Outcome{}, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	out, ok := c.last[key]
	return out, ok
}

// Queue returns a component's queued keys in order.
func (s *Stepped) Queue(component string) []string {
	if c := s.comps[component]; c != nil {
		return c.queue.Keys()
	}
	return nil
}

// Components lists the running components, sorted.
func (s *Stepped) Components() []string { return append([]string(nil), s.names...) }

// Errors returns internal errors seen so far (projection failures).
func (s *Stepped) Errors() []error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]error(nil), s.errs...)
}

// pending reports whether kind k has an event its informer in c has not
// delivered yet.
func (s *Stepped) pending(c *component, k model.Kind) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return s.env.written(k) > c.mem.Rev[k]
}

// Step applies one action, as model.State.Step does.
func (s *Stepped) Step(a model.Action) model.Result {
	if !s.enabled(a) {
		return model.Result{Err: fmt.Errorf("%w: %s", model.ErrNotEnabled, a)}
	}
	switch {
	case a.Op.IsUser():
		return s.user(a)
	case a.Op.IsStep():
		return s.step(a)
	}
	return s.fault(a)
}

func (s *Stepped) step(a model.Action) model.Result {
	c := s.comps[a.Who]
	ctx, cancel := s.wait()
	defer cancel()
	switch a.Op {
	case model.OpDeliver:
		ev, err := c.inf[a.Kind].DeliverNext(ctx)
		if err != nil {
			return model.Result{Err: fmt.Errorf("%w: %s: %v", ErrTimeout, a, err)}
		}
		m := api.Meta(ev.Object)
		what := a.Kind.Resource() + "/" + model.Key(m.Namespace, m.Name)
		if o, err := s.env.projectEvent(a.Kind, ev.Object); err == nil {
			what = model.RefOf(o).String() // a custom resource's names its type
		}
		return model.Result{Delivered: ev.Type + " " + what}
	case model.OpRelist:
		for _, k := range c.kinds {
			var at int64
			if c.travel {
				at = c.mem.Rev[k] // a lagging apiserver: see timetravel.go
			}
			if err := c.inf[k].RelistAt(ctx, at); err != nil {
				return model.Result{Err: fmt.Errorf("cluster: relist %s: %w", a.Who, err)}
			}
		}
		c.broken, c.travel = false, false
		c.rebuild(ctx)
		return model.Result{Delivered: fmt.Sprintf("RELIST %d", c.mem.Len())}
	case model.OpReconcile:
		if c.queue.IsRetry(a.Key) {
			s.lastRetry = a.Who
		}
		c.queue.Take(a.Key)
		writes := c.reconcile(ctx, a.Key, a.CrashAfter)
		delete(c.idle, a.Key)
		if c.polled && a.CrashAfter == 0 {
			if c.idle == nil {
				c.idle = map[string]int64{}
			}
			c.idle[a.Key] = s.env.latestWrite() // as the model's idle retries
		}
		return model.Result{Writes: writes}
	case model.OpHeartbeat:
		return model.Result{Writes: s.heartbeat(ctx, a.Who)}
	}
	return model.Result{}
}

func (s *Stepped) heartbeat(ctx context.Context, node string) []model.Write {
	c := s.comps[model.KubeletName(node)]
	w := newWriter(ctx, c, -1)
	if n, _ := (&host{env: s.env, ctx: ctx}).Live(model.Ref{Kind: model.KindNode, Name: node}).(*model.Node); n != nil {
		w.Update(model.VerbStatus, n, model.Heartbeat(n, s.logical.Load()))
	}
	return w.writes
}

func (s *Stepped) fault(a model.Action) model.Result {
	if a.Op.IsWorld() {
		s.worldFault(a)
		return model.Result{}
	}
	c := s.comps[a.Who]
	switch a.Op {
	case model.OpHold:
		c.held = true
	case model.OpAPIError:
		c.arm(a.N)
	case model.OpTimeTravel:
		c.restartStale()
	case model.OpRelease:
		c.held = false
	case model.OpDropWatch:
		s.breakWatches(c)
	case model.OpCompact:
		rev, err := s.store.Rev(s.ctx)
		if err == nil {
			err = s.store.Compact(s.ctx, rev)
		}
		if err != nil {
			return model.Result{Err: fmt.Errorf("cluster: compact: %w", err)}
		}
		// Every lagging watch would resume below the compaction: Gone.
		for _, c := range s.comps {
			for _, k := range c.kinds {
				if c.mem.Rev[k] < rev {
					s.breakWatches(c)
					break
				}
			}
		}
	case model.OpCrash:
		c.crash()
	case model.OpCrashContainer:
		if s.env.nodes.crash(s.ctx, a.Who, a.Key) {
			// The kubelet's pod lifecycle event generator notices.
			s.comps[model.KubeletName(a.Who)].queue.Add(a.Key)
		}
	case model.OpNodeDown, model.OpNodeUp:
		for _, n := range []string{model.KubeletName(a.Who), model.ProxyName(a.Who)} {
			c := s.comps[n]
			c.mu.Lock()
			c.down = a.Op == model.OpNodeDown
			c.mu.Unlock()
			if a.Op == model.OpNodeUp && s.env.stepped {
				s.breakWatches(c) // partitioned watches are gone
			}
		}
	}
	return model.Result{}
}

func (s *Stepped) breakWatches(c *component) {
	for _, inf := range c.inf {
		inf.DropWatch()
	}
	c.broken = true
	c.travel = false // a new list is the latest one
}
