package cluster

import (
	"context"
	"errors"
	"slices"
	"sort"
	"time"

	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/impl/client"
	"github.com/converge-dev/converge/impl/controller"
	"github.com/converge-dev/converge/impl/project"
	"github.com/converge-dev/converge/impl/registry"
	"github.com/converge-dev/converge/model"
)

// ControllerSpec plugs a user's controller into the control plane. With the
// Name of a built-in component it replaces that component's decision code
// (the informers, queue keys and faults stay the built-in's); with a new
// Name it adds a component that watches Watches and queues Keys. A
// cluster takes several specs: Disabled(name) silences a built-in while a
// new component of the user's does its work.
type ControllerSpec struct {
	Name string
	// Watches and Keys are for new components only. Keys maps an event to
	// queue keys, as client-go's MetaNamespaceKeyFunc makes them:
	// "namespace/name" for a namespaced object (model.KeyOf), the bare
	// name for a cluster-scoped one. nil queues the object's own key. A
	// Keys that answers a namespaced object's bare name is refused when
	// the cluster is built, or, for an event the trial missed, reported
	// as the cluster's error (Stepped.Errors).
	Watches []model.Kind
	Keys    func(e model.WatchEvent) []string
	// New builds the Reconciler. It is called again after every crash, as
	// a restarted process would be.
	New func(env ControllerEnv) controller.Reconciler

	disabled bool // made by Disabled
}

// ControllerEnv is what a user's controller gets: a client whose writes the
// harness counts (for crash points) and records (for traces and
// invariants), the component's informer caches, and the clock.
type ControllerEnv struct {
	Client client.Client
	Cache  func(k model.Kind) *controller.Cache
	Now    func() time.Time
}

// userCode is a component's user controller and its live instance.
type userCode struct {
	spec   ControllerSpec
	rec    controller.Reconciler // nil until first use and after a crash
	client *recordingClient
	badKey bool // a key without its namespace was reported
}

// Disabled is a spec that keeps the built-in component name's informers,
// queue and faults and reconciles nothing: add a component of your own
// beside it to do its work with your watches and keys.
func Disabled(name string) ControllerSpec {
	return ControllerSpec{Name: name, New: func(ControllerEnv) controller.Reconciler { return disabled{} }, disabled: true}
}

// StandIns names the new components that may do a Disabled built-in's
// work: those watching a kind it watches. ok is false unless name is a
// disabled built-in.
func (s *Stepped) StandIns(name string) (names []string, ok bool) {
	if u := s.users[name]; u == nil || !u.disabled {
		return nil, false
	}
	for n, u := range s.users {
		if model.WatchedKinds(n) != nil {
			continue
		}
		for _, k := range u.Watches {
			if slices.Contains(model.WatchedKinds(name), k) {
				names = append(names, n)
				break
			}
		}
	}
	sort.Strings(names)
	return names, true
}

type disabled struct{}

func (disabled) Reconcile(context.Context, controller.Request) (controller.Result, error) {
	return controller.Result{}, nil
}

// reconcileUser runs the user's Reconciler for one key and returns what it
// returned: as in controller-runtime, the return value alone decides the
// retry (see component.reconcile); a failed write is the controller's to
// handle, and only the crash point stops its writes.
func (c *component) reconcileUser(ctx context.Context, key string, w *writer) (controller.Result, error) {
	u := c.user
	if u.rec == nil {
		u.client = &recordingClient{Client: c.env.client}
		u.rec = u.spec.New(ControllerEnv{Client: u.client, Cache: c.cacheOf, Now: c.env.clockTime})
	}
	u.client.w = w
	ns, name := model.RequestOf(c.name, key)
	return u.rec.Reconcile(ctx, controller.Request{Namespace: ns, Name: name})
}

func (c *component) cacheOf(k model.Kind) *controller.Cache {
	if inf := c.inf[k]; inf != nil {
		return inf.Cache()
	}
	return nil
}

// errUnchanged marks a delete that found the object already terminating
// and wrote nothing; the caller sees success.
var errUnchanged = errors.New("cluster: the delete found the object terminating")

// errCrashed is what a user's write returns past its crash point.
var errCrashed = errors.New("cluster: the component crashed at its crash point")

// recordingClient records a user controller's writes as model.Writes and
// refuses them past the crash point.
type recordingClient struct {
	client.Client
	w *writer
}

// write makes one write and records it; deletes report whether the object
// is gone for good. A transient API error armed for the component fails
// the call before it reaches the store: nothing is recorded.
func (r *recordingClient) write(verb model.Verb, resource, name string, do func() (api.Object, error)) (api.Object, error) {
	return r.writeWith(verb, resource, name, writeFacts{}, do)
}

// writeFacts are what a write's record needs beyond its answer: an
// update's object as sent (did it take the last finalizer?), a delete's
// gracePeriodSeconds, and whether a create's owner was being deleted in
// the component's view.
type writeFacts struct {
	sent     api.Object
	grace    *int64
	deleting bool
}

// writeWith is write with facts.
func (r *recordingClient) writeWith(verb model.Verb, resource, name string, facts writeFacts, do func() (api.Object, error)) (api.Object, error) {
	if r.w.crashed() {
		return nil, errCrashed
	}
	if err := r.transient(resource, name); err != nil {
		return nil, err
	}
	k, known := model.KindOf(resource)
	var sentRev int64 // the update's precondition, read before the client answers into it
	if facts.sent != nil {
		sentRev = revOf(facts.sent)
	}
	stored, err := do()
	unchanged := errors.Is(err, errUnchanged)
	if unchanged {
		err = nil
	}
	if !known {
		return stored, err
	}
	ref := model.RefTo(k, name)
	if stored != nil {
		ref.Name = api.Meta(stored).Name
		if k.Namespaced() {
			ref.Namespace = api.Meta(stored).Namespace
		}
	}
	var before model.Obj // a create replaces nothing, whatever a stale cache holds
	if verb != model.VerbCreate {
		before = r.w.c.mem.GetRef(ref)
	}
	final := err == nil && facts.sent != nil && removedByUpdate(facts.sent)
	if !final && err == nil && stored != nil && (verb == model.VerbUpdate || verb == model.VerbStatus) &&
		(revOf(stored) == sentRev || (before != nil && revOf(stored) == model.MetaOf(before).Version)) {
		// An update that changed nothing: over HTTP the apiserver keeps
		// the resourceVersion and tells no watcher, as kube-apiserver
		// does (registry.SkipUnchanged), and the model writes nothing
		// either (model/user.go). A write gets a new revision.
		return stored, nil
	}
	if verb == model.VerbDelete {
		if unchanged || (err == nil && stored != nil && before != nil && revOf(stored) == model.MetaOf(before).Version) {
			return stored, nil // nothing was written
		}
		final = stored == nil || removedByDelete(stored, facts.grace)
	}
	r.w.record(verb, ref, before, stored, final, err)
	if verb == model.VerbCreate {
		r.w.writes[len(r.w.writes)-1].OwnerDeleting = facts.deleting
	}
	return stored, err
}

func resourceOf(obj api.Object) string {
	if ri, ok := api.ResourceFor(obj); ok {
		return ri.Resource
	}
	return ""
}

func (r *recordingClient) Create(ctx context.Context, obj api.Object) (api.Object, error) {
	deleting := false
	if o, err := project.ToModel(obj, r.w.c.env.uids); err == nil {
		deleting = model.OwnerDeletingIn(r.w.c.mem, o)
	}
	return r.writeWith(model.VerbCreate, resourceOf(obj), api.Meta(obj).Name, writeFacts{deleting: deleting}, func() (api.Object, error) { return r.Client.Create(ctx, obj) })
}

func (r *recordingClient) Update(ctx context.Context, obj api.Object) (api.Object, error) {
	return r.writeWith(model.VerbUpdate, resourceOf(obj), api.Meta(obj).Name, writeFacts{sent: obj}, func() (api.Object, error) { return r.Client.Update(ctx, obj) })
}

func (r *recordingClient) UpdateStatus(ctx context.Context, obj api.Object) (api.Object, error) {
	return r.writeWith(model.VerbStatus, resourceOf(obj), api.Meta(obj).Name, writeFacts{sent: obj}, func() (api.Object, error) { return r.Client.UpdateStatus(ctx, obj) })
}

func (r *recordingClient) FinalizeNamespace(ctx context.Context, ns *api.Namespace) (api.Object, error) {
	return r.writeWith(model.VerbFinalize, "namespaces", ns.Name, writeFacts{sent: ns}, func() (api.Object, error) { return r.Client.FinalizeNamespace(ctx, ns) })
}

// Delete records no write when the object was already terminating and the
// delete left it as it was: a delete without a precondition, as upstream's
// replicaset controller sends, may find it so, and nothing was written.
func (r *recordingClient) Delete(ctx context.Context, resource, namespace, name string, opts api.DeleteOptions) (api.Object, error) {
	var prior api.Object
	return r.writeWith(model.VerbDelete, resource, name, writeFacts{grace: opts.GracePeriodSeconds}, func() (api.Object, error) {
		prior, _ = r.Client.Get(ctx, resource, namespace, name)
		stored, err := r.Client.Delete(ctx, resource, namespace, name, opts)
		if err == nil && stored != nil && prior != nil && api.Meta(prior).DeletionTimestamp != nil && revOf(stored) == revOf(prior) {
			return stored, errUnchanged
		}
		return stored, err
	})
}

// Get and List fail with an armed transient API error, as a read from an
// overloaded apiserver does.
func (r *recordingClient) Get(ctx context.Context, resource, namespace, name string) (api.Object, error) {
	if err := r.transient(resource, name); err != nil {
		return nil, err
	}
	return r.Client.Get(ctx, resource, namespace, name)
}

func (r *recordingClient) List(ctx context.Context, resource, namespace string, opts registry.ListOptions) (api.ListObject, error) {
	if err := r.transient(resource, ""); err != nil {
		return nil, err
	}
	return r.Client.List(ctx, resource, namespace, opts)
}

// transient is the component's armed API error, if any; none outside a
// reconcile (a controller's constructor may read).
func (r *recordingClient) transient(resource, name string) error {
	if r.w == nil {
		return nil
	}
	return r.w.c.transient(resource, name)
}

func (r *recordingClient) Bind(ctx context.Context, namespace, pod, node, expectRV string) (api.Object, error) {
	return r.write(model.VerbBind, "pods", pod, func() (api.Object, error) { return r.Client.Bind(ctx, namespace, pod, node, expectRV) })
}

func (e *env) clockTime() time.Time { return time.Unix(e.now(), 0).UTC() }
