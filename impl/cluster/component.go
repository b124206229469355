package cluster

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/impl/controller"
	"github.com/converge-dev/converge/impl/project"
	"github.com/converge-dev/converge/impl/registry"
	"github.com/converge-dev/converge/model"
)

// component is one component of the control plane: the model's decision
// code over a memory that its informers feed, a work queue, and fault
// flags. Both drivers use it; only who calls deliver/reconcile differs.
type component struct {
	name  string
	node  string
	env   *env
	kinds []model.Kind
	inf   map[model.Kind]*controller.Informer
	// ctx ends when the component is removed (its node goes away).
	ctx    context.Context
	cancel context.CancelFunc

	mu    sync.Mutex // guards mem and the flags: running-mode handlers race reconciles
	mem   *model.Memory
	queue *controller.Queue
	seen  int

	held, down, broken bool
	// travel: restarted by time-travel; the next relist is served at the
	// revisions its informers had reached (timetravel.go).
	travel bool
	// timers holds the stepped driver's RequeueAfter keys: the logical
	// time each is due (see timers.go).
	timers map[string]int64
	// idle marks retried keys whose last reconcile only asked to be
	// retried, with the latest write then (the model's component.idle).
	idle map[string]int64
	// polled: the last reconcile ended with Retry and wrote nothing.
	polled bool
	// fault is an armed transient API error: the HTTP code the
	// component's next API call fails with (see faults.go).
	fault int

	// The running driver's inbox of events not yet applied.
	inboxMu    sync.Mutex
	inbox      []model.WatchEvent
	inboxReady chan struct{}

	// user, when set, is a user's controller in place of (or in addition
	// to) the model's decision code.
	user *userCode
	// last is how each key's latest reconcile ended (Stepped.LastReconcile).
	last map[string]Outcome
}

// Outcome is how a component's latest reconcile of a key ended.
type Outcome struct {
	// Result is a user's controller's answer.
	Result controller.Result
	// Err is a user's controller's error, or a built-in's failed write's.
	Err error
	// Retry: the key was queued again with backoff.
	Retry bool
}

// lastFailure is the error of the last write that failed, if any.
func lastFailure(ws []model.Write) error {
	for i := len(ws) - 1; i >= 0; i-- {
		if ws[i].Err != nil {
			return ws[i].Err
		}
	}
	return nil
}

func newComponent(e *env, name string, user *ControllerSpec) *component {
	c := &component{name: name, node: model.NodeOf(name), env: e, kinds: model.WatchedKinds(name), inf: map[model.Kind]*controller.Informer{}}
	if user != nil {
		c.user = &userCode{spec: *user}
		if c.kinds == nil {
			c.kinds = user.Watches
		}
	}
	c.mem = model.NewMemory(name)
	c.queue = e.newQueue()
	c.inboxReady = make(chan struct{}, 1)
	return c
}

// watch attaches the component to an informer for kind k.
func (c *component) watch(k model.Kind, inf *controller.Informer) {
	c.inf[k] = inf
	if wantsOwnPods(c, k) {
		c.env.kubeletPodsOf(inf).add(c)
		return
	}
	inf.AddHandler(c.onEvent(k))
}

// onEvent projects an informer's event into the memory and queues the keys
// the model's handler names.
func (c *component) onEvent(k model.Kind) controller.Handler {
	return func(ev controller.ListWatchEvent, _ *controller.Cache) {
		o, err := c.env.projectEvent(k, ev.Object)
		if err != nil {
			c.env.report(fmt.Errorf("%s: %w", c.name, err))
			return
		}
		c.deliver(model.WatchEvent{Type: eventType(ev.Type), Obj: o, Rev: ev.Rev})
	}
}

// deliver applies e at once in the stepped driver. In the running driver
// it goes through an inbox, so a shared informer never waits for a
// component that is busy reconciling.
func (c *component) deliver(e model.WatchEvent) {
	if c.ctx.Err() != nil {
		return // removed with its node; shared informers outlive it
	}
	if c.env.stepped {
		c.apply(e)
		return
	}
	c.inboxMu.Lock()
	c.inbox = append(c.inbox, e)
	c.inboxMu.Unlock()
	select {
	case c.inboxReady <- struct{}{}:
	default:
	}
}

// drain applies inbox events until the component is removed.
func (c *component) drain() {
	for {
		select {
		case <-c.ctx.Done():
			return
		case <-c.inboxReady:
		}
		c.inboxMu.Lock()
		evs := c.inbox
		c.inbox = nil
		c.inboxMu.Unlock()
		for _, ev := range evs {
			c.apply(ev)
		}
	}
}

func (c *component) apply(e model.WatchEvent) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e.Old = c.mem.Apply(e)
	c.seen++
	for _, key := range c.keys(e) {
		c.queue.Add(key)
	}
}

// keys is the model's key function, or a new user component's (its Keys,
// or namespace/name). A user's key that drops a namespace is reported
// once, which fails the check that steps the cluster; it is still queued,
// so the run goes on as the controller asked.
func (c *component) keys(e model.WatchEvent) []string {
	if c.user != nil && model.WatchedKinds(c.name) == nil {
		if c.user.spec.Keys == nil {
			return defaultKeys(e)
		}
		keys := c.user.spec.Keys(e)
		for _, key := range keys {
			if err := c.checkKey(e, key); err != nil && !c.user.badKey {
				c.user.badKey = true
				c.env.report(err)
			}
		}
		return keys
	}
	return model.Keys(c.mem, e)
}

func eventType(t string) model.EventType {
	switch t {
	case "ADDED":
		return model.Added
	case "DELETED":
		return model.Deleted
	}
	return model.Modified
}

// rebuild replaces the memory with the informers' caches after a list and
// queues every key, as the model's relist does.
func (c *component) rebuild(ctx context.Context) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.mem.Clear()
	for k, inf := range c.inf {
		for _, obj := range inf.Cache().List() {
			if o, err := project.ToModel(obj, c.env.uids); err == nil {
				c.mem.Put(o)
			}
		}
		c.mem.Rev[k] = inf.LastRev()
	}
	c.seen++
	if c.user != nil && model.WatchedKinds(c.name) == nil {
		for _, o := range c.mem.Objects() {
			for _, key := range c.keys(model.WatchEvent{Type: model.Added, Obj: o}) {
				c.queue.Add(key)
			}
		}
		return
	}
	for _, key := range model.Resync(c.mem, &host{env: c.env, ctx: ctx}) {
		c.queue.Add(key)
	}
}

// reconcile runs the model's decision for one key and makes its writes.
// crashAfter > 0 stops after that many writes and crashes the component.
func (c *component) reconcile(ctx context.Context, key string, crashAfter int) []model.Write {
	limit := -1
	if crashAfter > 0 {
		limit = crashAfter
	}
	w := newWriter(ctx, c, limit)
	w.reconciling = true
	c.mu.Lock()
	q := c.queue
	// The shared decision code stops at a failed write and is retried; a
	// user's controller decides for itself, as in controller-runtime: an
	// error retries with backoff, Requeue retries, RequeueAfter sets a
	// timer (on the logical clock in the stepped driver), nil forgets.
	var retry bool
	var after time.Duration
	var out Outcome
	c.polled = false
	if c.user != nil {
		out.Result, out.Err = c.reconcileUser(ctx, key, w)
		retry = out.Err != nil || (out.Result.Requeue && out.Result.RequeueAfter <= 0)
		after = out.Result.RequeueAfter
	} else {
		c.env.decisions.For(c.name)(c.mem, &host{env: c.env, ctx: ctx}, w, key)
		retry = w.failed
		c.polled = w.polled && len(w.writes) == 0
		out.Err = lastFailure(w.writes)
	}
	out.Retry = retry && crashAfter == 0
	if c.last == nil {
		c.last = map[string]Outcome{}
	}
	c.last[key] = out
	c.mu.Unlock()
	switch {
	case crashAfter > 0:
		c.crash() // a new, empty queue
	case retry:
		q.AddRateLimited(key)
	case after > 0:
		q.Forget(key)
		c.requeueAfter(key, after)
	default:
		q.Forget(key)
	}
	q.Done(key)
	return w.writes
}

// crash throws away the process's memory: cache, queue, expectations.
func (c *component) crash() {
	for _, inf := range c.inf {
		inf.Reset()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.mem.Reset()
	c.queue = c.env.newQueue()
	c.timers = nil
	c.idle = nil
	c.fault = 0
	c.broken = true
	c.travel = false
	if c.user != nil {
		c.user.rec = nil // the process restarts with nothing in memory
	}
}

// host is the model.Host of the implementation's components: live reads
// through the client, the logical clock, the node's runtime and rules.
type host struct {
	env *env
	ctx context.Context
}

var _ model.Host = (*host)(nil)

func (h *host) Live(r model.Ref) model.Obj {
	obj, err := h.env.client.Get(h.ctx, project.ResourceOf(r), r.Namespace, r.Name)
	if err != nil {
		return nil
	}
	o, err := project.ToModel(obj, h.env.uids)
	if err != nil {
		return nil
	}
	return o
}

// LiveList lists k's objects sorted by key, as the model's store does; an
// object the model cannot represent is left out, as Live answers nil for it.
// KindCustom's holds every kind the model lacks (model.Host.LiveList).
func (h *host) LiveList(k model.Kind) ([]model.Obj, error) {
	resources := []string{listedResource(k)}
	if k == model.KindCustom {
		resources = append(resources, otherResources()...)
	}
	var out []model.Obj
	for _, res := range resources {
		l, err := h.env.lw.reader(res).List(h.ctx, res, "", registry.ListOptions{})
		if err != nil {
			return nil, err
		}
		for _, obj := range api.Items(l) {
			if o, err := project.ToModel(obj, h.env.uids); err == nil {
				out = append(out, o)
			}
		}
	}
	model.SortObjects(out)
	return out, nil
}

// otherResources are the built-in resources the model lacks (ConfigMaps,
// Secrets, Events, ...), which owners and namespaces hold as they hold any
// object. CRDs are left out: nothing owns one, and no namespace holds one.
func otherResources() []string {
	var out []string
	for _, info := range api.Resources() {
		_, modelled := model.KindOf(info.Resource)
		_, custom := api.LookupCustom(info.Resource)
		if modelled || custom || info.ListKind == "" || info.Resource == "customresourcedefinitions" || !slices.Contains(info.Verbs, "list") {
			continue
		}
		out = append(out, info.Resource)
	}
	return out
}

func (h *host) Now() int64                               { return h.env.now() }
func (h *host) NodeIndex(node string) int                { return h.env.nodes.indexOf(node) }
func (h *host) Containers(node string) []model.Container { return h.env.nodes.containers(h.ctx, node) }
func (h *host) Rules(node string) map[string]model.Rule  { return h.env.nodes.rulesOf(node) }
func (h *host) ImagePullFails(image string) bool         { return h.env.nodes.imagePullFails(image) }
func (h *host) CPUFullNodes() []string                   { return h.env.nodes.cpuFullNodes() }
