package operator

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/impl/controller"
	"github.com/converge-dev/converge/impl/store"
)

// Config is what a Host needs: the user's scheme and setup, and the
// cluster it runs against.
type Config struct {
	// Scheme holds the operator's types (its CRDs' and the built-ins').
	Scheme *runtime.Scheme
	// Setup is the user's own wiring, SetupWithManager for each
	// reconciler. It runs again after every crash, on a new manager.
	Setup func(manager.Manager) error
	// Handler is converge's apiserver over the cluster's registry: the
	// operator's client writes through it.
	Handler http.Handler
	// Store is the cluster's store, to know when the operator's informers
	// have every event written so far.
	Store *store.Store
	// ListWatcher lists and watches for the operator's informers.
	ListWatcher controller.ListWatcher
	// Wrote, if set, hears every write the operator makes, with its
	// revision (the stepped cluster's NoteExternalWrite).
	Wrote func(resource string, rev int64)
	// Timeout bounds each wait (start, a reconcile, events). Default 10 s.
	Timeout time.Duration
}

// Item is one queued reconcile: a controller and its request.
type Item struct {
	Controller string
	Request    reconcile.Request
}

// expectedOfACache says whether err is an answer a stale cache earns
// every controller: a conflict, a not-found, an already-exists, or a
// create in a namespace that is being deleted (upstream's
// NamespaceLifecycle), which ends once the namespace has gone.
func expectedOfACache(err error) bool {
	return apierrors.IsConflict(err) || apierrors.IsNotFound(err) || apierrors.IsAlreadyExists(err) ||
		apierrors.HasStatusCause(err, corev1.NamespaceTerminatingCause)
}

func (it Item) String() string {
	return it.Controller + " " + objectKey(it.Request.Namespace, it.Request.Name)
}

// Failure is a reconcile that panicked, or returned an error with no
// fault to blame that is not one of the answers a stale cache earns every
// controller (expectedOfACache). controller-runtime retries those, and
// they are how optimistic concurrency works.
type Failure struct {
	Item
	// Oracle names the check that failed when it is not the reconcile's
	// own panic or error (churn).
	Oracle string
	Err    error
	Panic  any
	Stack  string
}

func (f Failure) String() string {
	if f.Panic != nil {
		return fmt.Sprintf("reconcile %s panicked: %v\n%s", f.Item, f.Panic, f.Stack)
	}
	if f.Oracle != "" {
		return fmt.Sprintf("%s: in reconcile %s: %v", f.Oracle, f.Item, f.Err)
	}
	return fmt.Sprintf("reconcile %s returned an error: %v", f.Item, f.Err)
}

// Outcome is what one reconcile did, or one stretch of it when its
// controller runs reconciles side by side (Parked).
type Outcome struct {
	Writes  []Written // the writes that landed, in order
	Crashed bool
	// Parked: the reconcile waits before its next write to the
	// apiserver, for Continue. Only a controller with more than one
	// worker (MaxConcurrentReconciles) parks its reconciles.
	Parked bool
	// Killed is the parked reconciles that the crash ended.
	Killed []Item
}

// Written is one write the operator made: CREATE, UPDATE, STATUS, PATCH or
// DELETE of resource's object name ("namespace/name", or the name alone in
// the default namespace, as traces name objects).
type Written struct {
	Verb, Resource, Name string
}

// ErrCrashed is what the operator's requests get past a crash point.
var ErrCrashed = errors.New("converge: the operator crashed at its crash point")

var errReconcileTimeout = errors.New("converge: the reconcile did not finish in time")

// Host runs an unmodified controller-runtime operator one step at a time:
// its manager is controller-runtime's own, with converge's stepped cache
// and stepped work queues put in, and its client is the real one, served
// in-process by converge's apiserver. The harness decides which event is
// delivered and which request is reconciled next; everything in between
// is the user's code and controller-runtime's.
type Host struct {
	cfg   Config
	noter noter

	mu        sync.Mutex
	now       time.Duration // the queues' logical clock
	queues    map[string]*steppedQueue
	workers   map[string]int // each controller's MaxConcurrentReconciles
	adopted   []string       // controllers of the current manager, in Setup's order
	failures  []Failure
	errs      []error
	writes    int
	wrote     map[schema.GroupVersionKind]bool // the kinds of the objects the operator wrote
	active    map[Item]*pass                   // reconciles handed out and not yet done
	running   *pass                            // the reconcile the harness last let run
	synced    int64                            // the store revision every informer had caught up with
	syncedSet int                              // how many informers there were then
	churn     churn
	hooks     *webhooks // the current life's webhook server
	run       *instance
}

// instance is one life of the operator process.
type instance struct {
	cache   *steppedCache
	cancel  context.CancelFunc
	done    chan error
	crashed bool // past a crash point, or stopping: every request fails
}

// pass is one reconcile from its hand to its end: its faults, and what it
// did in its latest stretch.
type pass struct {
	Item
	life        *instance
	interleaved bool                      // it parks before each write
	budget      int                       // writes left before the crash point; <0: none
	failAt      int                       // its request that fails with a 500, counting from 1; 0: none
	requests    int                       // requests it has sent
	faulted     bool                      // a request of it was failed on purpose
	failed      bool                      // its failing request was sent
	stale       map[schema.GroupKind]bool // kinds with undelivered events when it began
	written     []Written                 // its writes in this stretch
}

// upToDate says whether the operator's informer of gvk had every event
// written before this reconcile delivered when it began (no informer:
// nothing to be stale about).
func (p *pass) upToDate(gvk schema.GroupVersionKind) bool {
	return !p.stale[gvk.GroupKind()]
}

// passKey tags a reconcile's context with its pass, so that its requests
// are told apart from those of the reconciles parked beside it.
type passKey struct{}

// Start builds the manager, runs Setup and starts it, and returns once
// every controller waits for work with its initial events queued.
func Start(cfg Config) (*Host, error) {
	if cfg.Scheme == nil || cfg.Setup == nil || cfg.Handler == nil || cfg.Store == nil || cfg.ListWatcher == nil {
		return nil, errors.New("operator: Config needs a Scheme, Setup, Handler, Store and ListWatcher")
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 10 * time.Second
	}
	h := &Host{cfg: cfg, noter: noter{wrote: cfg.Wrote}}
	if err := h.start(nil); err != nil {
		h.Close()
		return nil, err
	}
	return h, nil
}

// start builds and starts one life of the operator; lag, if set, is the
// revision each resource's first list is served at.
func (h *Host) start(lag map[string]int64) error {
	ctx, cancel := context.WithCancel(context.Background())
	run := &instance{cancel: cancel, done: make(chan error, 1)}
	h.mu.Lock()
	h.queues = map[string]*steppedQueue{}
	h.workers = map[string]int{}
	h.active, h.running = map[Item]*pass{}, nil
	h.adopted = nil
	h.run = run
	h.synced = -1 // new informers, some perhaps listed in the past
	h.mu.Unlock()
	rc := inProcessConfig(inProcess{handler: h.cfg.Handler, before: h.before, after: h.after})
	hooks := newWebhooks()
	h.mu.Lock()
	h.hooks = hooks
	h.mu.Unlock()
	mgr, err := manager.New(rc, manager.Options{
		WebhookServer:          hooks,
		Scheme:                 h.cfg.Scheme,
		Logger:                 logr.Discard(),
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		// A restarted operator registers its controllers' names again.
		Controller: config.Controller{SkipNameValidation: ptr.To(true)},
		NewCache: func(_ *rest.Config, o cache.Options) (cache.Cache, error) {
			run.cache = newSteppedCache(ctx, o.Scheme, o.Mapper, h.cfg.ListWatcher, h.report)
			run.cache.lag = lag
			return run.cache, nil
		},
	})
	if err != nil {
		run.done <- nil // never started: nothing to wait for
		return fmt.Errorf("operator: new manager: %w", err)
	}
	if err := h.cfg.Setup(&steppedManager{Manager: mgr, h: h}); err != nil {
		run.done <- nil
		return fmt.Errorf("operator: setup: %w", err)
	}
	if len(h.controllers()) == 0 {
		run.done <- nil
		return errors.New("operator: Setup added no controller to the manager")
	}
	go func() { run.done <- mgr.Start(ctx) }()
	return h.waitIdle()
}

// steppedManager is the manager the user's Setup gets: controller-
// runtime's own, except that the controllers added to it get stepped
// queues and observed reconcilers.
type steppedManager struct {
	manager.Manager
	h *Host
}

func (m *steppedManager) Add(r manager.Runnable) error {
	if err := m.h.adopt(r); err != nil {
		return err
	}
	return m.Manager.Add(r)
}

// queueFunc is controller-runtime's NewQueue option for reconcile.Request.
type queueFunc = func(string, workqueue.TypedRateLimiter[reconcile.Request]) workqueue.TypedRateLimitingInterface[reconcile.Request]

// adopt puts a stepped queue and an observing reconciler into a controller
// that the builder made: the fields controller-runtime's NewQueue option
// and its Do would set. Other runnables are left alone.
func (h *Host) adopt(r manager.Runnable) error {
	v := reflect.ValueOf(r)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return nil
	}
	s := v.Elem()
	nq, do, name := s.FieldByName("NewQueue"), s.FieldByName("Do"), s.FieldByName("Name")
	if !nq.IsValid() || !do.IsValid() || !name.IsValid() || name.Kind() != reflect.String {
		return nil
	}
	var q queueFunc
	if nq.Type() != reflect.TypeOf(q) || do.Type() != reflect.TypeFor[reconcile.TypedReconciler[reconcile.Request]]() {
		return fmt.Errorf("operator: controller %s: converge steps controllers of reconcile.Request only", name.String())
	}
	ctrl := name.String()
	workers := 1
	if mc := s.FieldByName("MaxConcurrentReconciles"); mc.IsValid() && mc.CanInt() && mc.Int() > 1 {
		workers = int(mc.Int())
	}
	q = func(_ string, limiter workqueue.TypedRateLimiter[reconcile.Request]) workqueue.TypedRateLimitingInterface[reconcile.Request] {
		sq := newSteppedQueue(limiter, h.clock)
		h.mu.Lock()
		h.queues[ctrl] = sq
		h.mu.Unlock()
		return sq
	}
	inner, _ := do.Interface().(reconcile.TypedReconciler[reconcile.Request])
	if inner == nil {
		return fmt.Errorf("operator: controller %s has no reconciler", ctrl)
	}
	nq.Set(reflect.ValueOf(q))
	do.Set(reflect.ValueOf(reconcile.TypedReconciler[reconcile.Request](&observed{inner: inner, h: h, name: ctrl})))
	h.mu.Lock()
	h.adopted = append(h.adopted, ctrl)
	h.workers[ctrl] = workers
	h.mu.Unlock()
	return nil
}

// observed is the user's reconciler with its panics and errors recorded.
type observed struct {
	inner reconcile.TypedReconciler[reconcile.Request]
	h     *Host
	name  string
}

func (o *observed) Reconcile(ctx context.Context, req reconcile.Request) (res reconcile.Result, err error) {
	defer func() {
		if p := recover(); p != nil {
			o.h.fail(Failure{Item: Item{o.name, req}, Panic: p, Stack: string(debug.Stack())})
			err = fmt.Errorf("panic: %v", p)
		}
	}()
	o.h.mu.Lock()
	p := o.h.active[Item{o.name, req}]
	o.h.mu.Unlock()
	if p == nil {
		p = &pass{Item: Item{o.name, req}, life: &instance{}, budget: -1}
	}
	res, err = o.inner.Reconcile(context.WithValue(ctx, passKey{}, p), req)
	o.h.mu.Lock()
	blamed, failed, crashed := p.faulted, p.failed, p.life.crashed
	o.h.mu.Unlock()
	if err != nil && !expectedOfACache(err) && !blamed {
		o.h.fail(Failure{Item: Item{o.name, req}, Err: err})
	}
	if failed && !crashed && err == nil && res.IsZero() {
		o.h.fail(Failure{Item: Item{o.name, req}, Oracle: "swallowed error",
			Err: errors.New("a request failed with a 500, and the reconcile returned success without a requeue: nothing will retry it")})
	}
	return res, err
}

func (h *Host) fail(f Failure) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.failures = append(h.failures, f)
}

func (h *Host) report(err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.errs = append(h.errs, err)
}

func (h *Host) clock() time.Duration {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.now
}

// passOf is the reconcile a request belongs to: the one its context
// names, or else (a client called without the reconcile's context) the
// one running; nil outside reconciles.
func (h *Host) passOf(req *http.Request) *pass {
	if p, ok := req.Context().Value(passKey{}).(*pass); ok {
		return p
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.running
}

// before sees each request before the apiserver does. It parks an
// interleaved reconcile before each of its writes: what a reconcile read
// before a write is what another's write can make stale. It fails the
// requests past the operator's crash point, and the reconcile's failing
// request. Requests outside reconciles (startup's discovery) are spared:
// controller-runtime retries a failed one only after 10 s of wall clock.
func (h *Host) before(req *http.Request) (*http.Response, error) {
	p := h.passOf(req)
	if p != nil && p.interleaved && isWrite(req) && !h.dead(p) {
		if q := h.queue(p.Controller); q == nil || !q.park(p.Request) {
			h.mu.Lock()
			p.faulted = true
			h.mu.Unlock()
			return nil, ErrCrashed // the operator stopped while it waited
		}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	life := h.run
	if p != nil {
		life = p.life
	}
	if life.crashed {
		if p != nil {
			p.faulted = true
		}
		return nil, ErrCrashed
	}
	if p == nil {
		return nil, nil
	}
	p.requests++
	if p.requests == p.failAt {
		p.faulted, p.failed = true, true
		return statusResponse(req, apierrors.NewInternalError(errors.New("converge: an injected transient apiserver error"))), nil
	}
	if !isWrite(req) {
		return nil, nil
	}
	if p.budget == 0 {
		life.crashed, p.faulted = true, true
		return nil, ErrCrashed
	}
	if p.budget > 0 {
		p.budget--
	}
	return nil, nil
}

// dead reports whether p's operator crashed: its requests fail at once.
func (h *Host) dead(p *pass) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return p.life.crashed
}

// after counts the operator's writes that landed, tells the cluster, and
// looks for churn.
func (h *Host) after(req *http.Request, resp *http.Response, body []byte, lastWrite int64) {
	if !h.noter.note(req, resp, lastWrite) {
		return
	}
	p := h.passOf(req)
	h.mu.Lock()
	defer h.mu.Unlock()
	h.writes++
	w := answer(body)
	if gvk, ok := w.gvk(); ok {
		if h.wrote == nil {
			h.wrote = map[schema.GroupVersionKind]bool{}
		}
		h.wrote[gvk] = true
	}
	upToDate := func(schema.GroupVersionKind) bool { return true }
	var item Item
	if p != nil {
		p.written = append(p.written, writtenBy(req, w))
		upToDate, item = p.upToDate, p.Item
	}
	if err := h.churn.observe(req, w, upToDate); err != nil {
		h.failures = append(h.failures, Failure{Item: item, Oracle: "churn", Err: err})
	}
}

// staleKinds is the kinds whose informers have undelivered events.
func (h *Host) staleKinds() map[schema.GroupKind]bool {
	out := map[schema.GroupKind]bool{}
	for _, i := range h.run.cache.all() {
		if i.inner.Pending() > 0 {
			out[i.gvk.GroupKind()] = true
		}
	}
	return out
}

// controllers is the current manager's controllers, sorted.
func (h *Host) controllers() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := slices.Clone(h.adopted)
	slices.Sort(out)
	return out
}

func (h *Host) queue(name string) *steppedQueue {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.queues[name]
}

// waitIdle waits until every controller has started (its sources synced,
// a worker waiting) and nothing is being reconciled.
func (h *Host) waitIdle() error {
	deadline := time.Now().Add(h.cfg.Timeout)
	for {
		idle := true
		for _, c := range h.controllers() {
			if q := h.queue(c); q == nil || !q.idle() {
				idle = false
				break
			}
		}
		if idle {
			return h.Sync()
		}
		select {
		case err := <-h.run.done:
			if err == nil {
				err = errors.New("the manager stopped")
			}
			return fmt.Errorf("operator: manager: %w", err)
		default:
		}
		if time.Now().After(deadline) {
			if err := h.run.cache.lastError(); err != nil {
				return fmt.Errorf("operator: the controllers did not start within %s: %w", h.cfg.Timeout, err)
			}
			return fmt.Errorf("operator: the controllers did not start within %s", h.cfg.Timeout)
		}
		time.Sleep(200 * time.Microsecond)
	}
}

// Sync waits until every informer of the operator has buffered every
// event written so far, so that what is deliverable does not depend on
// timing: an informer is caught up when the objects and the highest
// revision it will have match the store's fingerprint of its resource.
func (h *Host) Sync() error {
	infs := h.run.cache.all()
	if len(infs) == 0 {
		return nil
	}
	scopes := make([]store.Scope, len(infs))
	for n, i := range infs {
		scopes[n] = store.Scope{Resource: api.StorageName(i.inner.Resource())}
	}
	deadline := time.Now().Add(h.cfg.Timeout)
	ctx, cancel := context.WithTimeout(context.Background(), h.cfg.Timeout)
	defer cancel()
	if rev, err := h.cfg.Store.Rev(ctx); err == nil && rev == h.synced && h.syncedSet == len(infs) {
		return nil // nothing was written since the last sync, and no informer is new
	}
	for {
		fps, rev, err := h.cfg.Store.Fingerprints(ctx, scopes...)
		if err != nil {
			return err
		}
		behind, changed := "", (<-chan struct{})(nil)
		for n, i := range infs {
			ch := i.inner.Changed() // before the look, so that no change is missed
			count, rev := i.inner.Horizon()
			if int64(count) != fps[n].Count || rev < fps[n].MaxModRev {
				behind, changed = i.inner.Resource(), ch
				if i.inner.Broken() {
					if err := h.relist(i); err != nil {
						return err
					}
				}
			}
		}
		if behind == "" {
			h.synced, h.syncedSet = rev, len(infs)
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("operator: the %s informer did not catch up within %s", behind, h.cfg.Timeout)
		}
		// Wake on the informer's change rather than poll (a 200µs sleep
		// took 850µs on a loaded 2-core machine), and look again after a
		// while in any case.
		select {
		case <-changed:
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// Deliverable is the resources whose informers have an event to deliver.
func (h *Host) Deliverable() []string {
	var out []string
	for _, i := range h.run.cache.all() {
		if i.inner.Pending() > 0 {
			out = append(out, i.inner.Resource())
		}
	}
	return out
}

func (h *Host) informer(resource string) (*steppedInformer, error) {
	for _, i := range h.run.cache.all() {
		if i.inner.Resource() == resource {
			return i, nil
		}
	}
	return nil, fmt.Errorf("operator: no informer of %s", resource)
}

// Deliver applies the next event of resource's informer: the cache
// changes and the controllers' handlers queue what they map it to.
func (h *Host) Deliver(resource string) (string, error) {
	i, err := h.informer(resource)
	if err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(context.Background(), h.cfg.Timeout)
	defer cancel()
	ev, err := i.inner.DeliverNext(ctx)
	if err != nil {
		return "", fmt.Errorf("operator: deliver %s: %w", resource, err)
	}
	m := api.Meta(ev.Object)
	return ev.Type + " " + resource + "/" + objectKey(m.Namespace, m.Name), nil
}

// DropWatch drops resource's watch and relists, as a broken connection
// does: the events in flight are lost, and the handlers hear the
// difference between the cache and the list.
func (h *Host) DropWatch(resource string) error {
	i, err := h.informer(resource)
	if err != nil {
		return err
	}
	i.inner.DropWatch()
	return h.relist(i)
}

func (h *Host) relist(i *steppedInformer) error {
	ctx, cancel := context.WithTimeout(context.Background(), h.cfg.Timeout)
	defer cancel()
	if err := i.inner.Relist(ctx); err != nil {
		return fmt.Errorf("operator: relist %s: %w", i.inner.Resource(), err)
	}
	return i.resync(true)
}

// Ready is the queued requests no worker holds, of the controllers with
// a worker free, by controller then key.
func (h *Host) Ready() []Item {
	var out []Item
	for _, c := range h.controllers() {
		if q := h.queue(c); q != nil && h.freeWorkers(c) > 0 {
			for _, r := range q.ready() {
				out = append(out, Item{c, r})
			}
		}
	}
	return out
}

// freeWorkers is how many more reconciles controller c may run beside
// those it has parked.
func (h *Host) freeWorkers(c string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := h.workers[c]
	for it := range h.active {
		if it.Controller == c {
			n--
		}
	}
	return n
}

// Parked is the reconciles waiting before a write for Continue, by
// controller then key.
func (h *Host) Parked() []Item {
	h.mu.Lock()
	out := make([]Item, 0, len(h.active))
	for it := range h.active {
		out = append(out, it)
	}
	h.mu.Unlock()
	slices.SortFunc(out, func(a, b Item) int {
		if a.Controller != b.Controller {
			return strings.Compare(a.Controller, b.Controller)
		}
		return compareRequests(a.Request, b.Request)
	})
	return out
}

// Faults are the faults of one reconcile.
type Faults struct {
	// CrashAfter >= 0: the operator dies when it tries its write number
	// CrashAfter+1 (counting from 1): the writes before it land, none
	// after it does, and the operator is built again from Setup. Below 0:
	// no crash.
	CrashAfter int
	// FailRequest > 0: the reconcile's request number FailRequest (counting
	// from 1) fails with a 500, as an overloaded apiserver's do.
	FailRequest int
}

// NoFaults is a reconcile without faults.
var NoFaults = Faults{CrashAfter: -1}

// Reconcile hands it to its controller, with faults f, and waits until
// the controller is done with it, or parks it.
func (h *Host) Reconcile(it Item, f Faults) (Outcome, error) {
	q := h.queue(it.Controller)
	if q == nil {
		return Outcome{}, fmt.Errorf("operator: no controller %s", it.Controller)
	}
	if h.freeWorkers(it.Controller) <= 0 {
		return Outcome{}, fmt.Errorf("operator: %s has no worker free for %s", it.Controller, it)
	}
	p := &pass{Item: it, budget: f.CrashAfter, failAt: f.FailRequest, stale: h.staleKinds()}
	h.mu.Lock()
	p.life, p.interleaved = h.run, h.workers[it.Controller] > 1
	h.active[it], h.running = p, p
	h.mu.Unlock()
	handed, err := q.hand(it.Request, h.cfg.Timeout)
	if err == nil && !handed {
		err = errors.New("not ready")
	}
	return h.paused(p, q, err)
}

// Continue lets a parked reconcile go on until it is done or parks again.
func (h *Host) Continue(it Item) (Outcome, error) {
	q := h.queue(it.Controller)
	h.mu.Lock()
	p := h.active[it]
	if p != nil {
		h.running = p
	}
	h.mu.Unlock()
	if q == nil || p == nil {
		return Outcome{}, fmt.Errorf("operator: %s is not parked", it)
	}
	proceeded, err := q.proceed(it.Request, h.cfg.Timeout)
	if err == nil && !proceeded {
		err = errors.New("not parked")
	}
	return h.paused(p, q, err)
}

// paused is what p did since it was handed or continued, now that it is
// done or parked; a crash restarts the operator, ending the reconciles
// parked beside it.
func (h *Host) paused(p *pass, q *steppedQueue, err error) (Outcome, error) {
	parked := q.isParked(p.Request)
	h.mu.Lock()
	out := Outcome{Writes: p.written, Crashed: p.life.crashed, Parked: parked}
	p.written = nil
	if !parked {
		delete(h.active, p.Item)
		if h.running == p {
			h.running = nil // later requests are no reconcile's
		}
	}
	h.mu.Unlock()
	if err != nil {
		return out, fmt.Errorf("operator: reconcile %s: %w", p.Item, err)
	}
	if out.Crashed {
		out.Killed, out.Parked = h.Parked(), false
		if err := h.Restart(); err != nil {
			return out, err
		}
	}
	return out, h.Sync()
}

// NextTimer is when the earliest delayed request (RequeueAfter, a
// rate-limited retry) is due on the logical clock.
func (h *Host) NextTimer() (time.Duration, bool) {
	var at time.Duration
	found := false
	for _, c := range h.controllers() {
		if q := h.queue(c); q != nil {
			if d, ok := q.nextDue(); ok && (!found || d < at) {
				at, found = d, true
			}
		}
	}
	return at, found
}

// FireTimers advances the logical clock to the earliest due request and
// queues every request due by then.
func (h *Host) FireTimers() {
	at, ok := h.NextTimer()
	if !ok {
		return
	}
	h.mu.Lock()
	h.now = max(h.now, at)
	now := h.now
	h.mu.Unlock()
	for _, c := range h.controllers() {
		if q := h.queue(c); q != nil {
			q.fireDue(now)
		}
	}
}

// Resync sends every cached object to the handlers again, as a resync
// period does; a controller at its fixed point then writes nothing.
func (h *Host) Resync() {
	for _, i := range h.run.cache.all() {
		i.replay()
	}
}

// Restart kills the operator and builds it again from Setup, as a
// restarted pod would be: new caches listed afresh, empty queues.
func (h *Host) Restart() error {
	h.stop()
	return h.start(nil)
}

// RestartLagging is Restart against a lagging apiserver, what Sieve calls
// time travel: each informer's first list is served at the revision the
// dead operator's informer had reached, and what happened since comes
// after it as watch events, as if from an apiserver catching up.
func (h *Host) RestartLagging() error {
	lag := map[string]int64{}
	for _, i := range h.run.cache.all() {
		lag[i.inner.Resource()] = i.inner.LastRev()
	}
	h.stop()
	return h.start(lag)
}

func (h *Host) stop() {
	if h.run == nil {
		return
	}
	h.mu.Lock()
	h.run.crashed = true // parked reconciles wake to a dead apiserver
	h.mu.Unlock()
	h.run.cancel()
	select {
	case <-h.run.done:
	case <-time.After(h.cfg.Timeout):
		h.report(errors.New("operator: the manager did not stop in time"))
	}
}

// IntentChanged tells the host that a user changed what the operator is
// asked for, the object of uid ("" for a new one): a delete and a
// re-create on either side of it are the operator following the user, not
// churn.
func (h *Host) IntentChanged(uid string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.churn.changed(uid)
}

// Writes is how many writes the operator has made.
func (h *Host) Writes() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.writes
}

// Failures is the reconciles that panicked or failed, in order.
func (h *Host) Failures() []Failure {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.failures)
}

// Errors is what went wrong in the harness itself.
func (h *Host) Errors() []error {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.errs)
}

// Close stops the operator.
func (h *Host) Close() { h.stop() }

// Kinds is the kinds the operator watches, then those it wrote and does
// not watch, sorted: the state its reconciles are answerable for.
func (h *Host) Kinds() []schema.GroupVersionKind {
	out := h.Watched()
	h.mu.Lock()
	var more []schema.GroupVersionKind
	for gvk := range h.wrote {
		if !slices.Contains(out, gvk) {
			more = append(more, gvk)
		}
	}
	h.mu.Unlock()
	slices.SortFunc(more, func(a, b schema.GroupVersionKind) int { return strings.Compare(a.String(), b.String()) })
	return append(out, more...)
}

// Webhooks is the paths of the admission webhooks the operator registered,
// sorted. CheckOperator runs them through Admission.
func (h *Host) Webhooks() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.hooks.registered()
}

// Watched is the kinds the operator's informers watch, by resource.
func (h *Host) Watched() []schema.GroupVersionKind {
	var out []schema.GroupVersionKind
	for _, i := range h.run.cache.all() {
		out = append(out, i.gvk)
	}
	return out
}
