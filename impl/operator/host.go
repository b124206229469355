package operator

import (
	"context"
	"errors"
	"fmt"
	"net/http"
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
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

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
	// UserInput, if set, says whether s is a value a user wrote into one
	// of the stored custom resources. A reconcile that fails because the
	// apiserver refused (422) only such values passed on verbatim is the
	// user's bad input, as a cluster would refuse it: Outcome.Refused
	// notes it, and it is no Failure.
	UserInput func(s string) bool
}

// Item is one queued reconcile: a controller and its request.
type Item struct {
	Controller string
	Request    reconcile.Request
}

// expectedOfACache says whether err is an answer a stale cache earns
// every controller: a conflict, a not-found, an already-exists, or a
// create in a namespace that is being deleted (upstream's
// NamespaceLifecycle), which ends once the namespace has gone. A
// not-found of a child (or of anything but the request's own object, see
// ownObjectGone) is tolerated: a reconcile reads its children through a
// cache that may lag the store, so an update or delete of a child the
// store no longer has is what optimistic concurrency answers, and the
// retry reads the newer state.
func expectedOfACache(err error) bool {
	return apierrors.IsConflict(err) || apierrors.IsNotFound(err) || apierrors.IsAlreadyExists(err) ||
		apierrors.HasStatusCause(err, corev1.NamespaceTerminatingCause)
}

func (it Item) String() string {
	return it.Controller + " " + objectKey(it.Request.Namespace, it.Request.Name)
}

// Failure is a reconcile that panicked, or returned an error with no
// fault to blame that is not one of the answers a stale cache earns every
// controller (expectedOfACache: controller-runtime retries those, and
// they are how optimistic concurrency works), nor the apiserver refusing
// the user's own values (Config.UserInput). A NotFound of the reconcile's
// own request's object, once the object is gone, is a Failure (Oracle
// "not found of its own object"): it is retried forever.
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
	// Refused is the reconcile's error when the apiserver refused values
	// of a custom resource that it passed on verbatim (Config.UserInput):
	// the user's bad input, not the operator's failure.
	Refused string
	// Settled: the reconcile is done, with no fault, and returned success
	// without asking to run again at once: it did what its view asked.
	Settled bool
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
	deleted   []Deleted // the operator's deletes since the harness last asked (Deletes)
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
	refused     string                    // the user's values it passed on were refused (Outcome.Refused)
	checks      passChecks                // what the write oracles keep of it
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
		Logger:                 logr.New(&kindSink{}), // silent; names each controller's primary kind
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		// A restarted operator registers its controllers' names again.
		Controller: config.Controller{SkipNameValidation: ptr.To(true)},
		NewCache: func(_ *rest.Config, o cache.Options) (cache.Cache, error) {
			run.cache = newSteppedCache(ctx, o.Scheme, o.Mapper, h.cfg.ListWatcher, h.report)
			run.cache.lag = lag
			run.cache.read = h.cacheRead
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
