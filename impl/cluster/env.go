package cluster

import (
	"cmp"
	"context"
	"slices"
	"strconv"
	"sync"

	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/impl/client"
	"github.com/converge-dev/converge/impl/controller"
	"github.com/converge-dev/converge/impl/project"
	"github.com/converge-dev/converge/impl/registry"
	"github.com/converge-dev/converge/impl/store"
	"github.com/converge-dev/converge/model"
)

// env is what a cluster's components share: the client, the uid map, the
// machines, the clock and the record of writes made.
type env struct {
	client client.Client
	lw     listWatcher
	uids   *project.UIDs
	nodes  *nodes
	clock  controller.Clock
	now    func() int64
	// decisions replaces the shared decision code (tests only).
	decisions model.Decisions
	report    func(error)
	// stepped queues hand out retries at once; running ones back off.
	stepped bool

	mu        sync.Mutex
	lastWrite [model.NumKinds]int64 // highest revision written per kind
	// shared holds the running driver's informers, one per kind for all
	// components, as a shared informer factory does: one watch and one
	// decode per event, whatever the number of nodes.
	shared map[model.Kind]*controller.Informer
	// kubelets feeds the running kubelets their own node's pod events.
	kubelets *kubeletPods

	lastEventMu sync.Mutex
	lastEvent   [model.NumKinds]eventProjection
	ownWrites   writtenProjections

	// events, when set (running driver), reports components' writes as
	// Events.
	events *eventRecorder
}

// eventProjection is the model form of the last object an informer of one kind
// handed its handlers.
type eventProjection struct {
	in  api.Object
	out model.Obj
	err error
}

// projectEvent is project.ToModel, once per event however many components
// watch the kind: an informer hands every handler the same object in turn,
// and the model treats its objects as immutable, so they can share one.
// With a hundred nodes, each pod event was projected by every kubelet.
func (e *env) projectEvent(k model.Kind, obj api.Object) (model.Obj, error) {
	e.lastEventMu.Lock()
	defer e.lastEventMu.Unlock()
	p := &e.lastEvent[k]
	if p.in != obj {
		if o, ok := e.ownWrites.take(obj); ok {
			p.out, p.err = o, nil
		} else {
			p.out, p.err = project.ToModel(obj, e.uids)
		}
		p.in = obj
	}
	return p.out, p.err
}

func (e *env) newInformer(k model.Kind) *controller.Informer {
	return controller.NewInformer(e.lw, controller.InformerConfig{Resource: watchedResource(k), Clock: e.clock})
}

// watchedResource is what an informer of kind k follows: listedResource,
// but KindCustom's (the garbage collector's) follows the built-in kinds
// the model lacks as well (ownedUnmodelled), as custom ones. An operator's
// custom resource owns them as often as it owns a Deployment, and the
// collector must hear of one made for an owner already gone, as
// Kubernetes' collector, which watches every resource, does.
func watchedResource(k model.Kind) string {
	if k == model.KindCustom {
		return customAndUnmodelled()
	}
	return k.Resource()
}

// customAndUnmodelled is the garbage collector's store.Union.
var customAndUnmodelled = sync.OnceValue(func() string {
	return store.Union(append(ownedUnmodelled(), store.AllCustom)...)
})

// ownedUnmodelled are the built-in resources the model lacks that an owner
// may hold: every one but Events, which nothing owns and every component
// writes.
var ownedUnmodelled = sync.OnceValue(func() []string {
	return slices.DeleteFunc(otherResources(), func(r string) bool { return r == "events" })
})

// listedResource is what lists and watches kind k: every custom resource
// at once for KindCustom, whatever CRDs come and go.
func listedResource(k model.Kind) string {
	if k == model.KindCustom {
		return store.AllCustom
	}
	return k.Resource()
}

// kindOf is the model's kind whose informers follow a resource the
// registry serves (watchedResource).
func kindOf(resource string) (model.Kind, bool) {
	if _, custom := api.LookupCustom(resource); custom || slices.Contains(ownedUnmodelled(), resource) {
		return model.KindCustom, true
	}
	return model.KindOf(resource)
}

// sharedInformer returns the running informer for kind k, starting it the
// first time; run starts its goroutine.
func (e *env) sharedInformer(ctx context.Context, k model.Kind, run func(*controller.Informer)) (*controller.Informer, error) {
	e.mu.Lock()
	if e.shared == nil {
		e.shared = map[model.Kind]*controller.Informer{}
	}
	inf, ok := e.shared[k]
	if !ok {
		inf = e.newInformer(k)
		e.shared[k] = inf
		run(inf)
	}
	e.mu.Unlock()
	return inf, inf.WaitForSync(ctx)
}

func (e *env) newQueue() *controller.Queue {
	return controller.NewQueue(controller.QueueConfig{Stepped: e.stepped, Clock: e.clock})
}

// noteWrite remembers that kind k changed at rev, so the stepped driver
// knows which informers have an event coming.
func (e *env) noteWrite(k model.Kind, rev int64) {
	if rev == 0 {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.lastWrite[k] = max(e.lastWrite[k], rev)
}

// latestWrite is the revision of the last write of any kind.
func (e *env) latestWrite() int64 {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Max(e.lastWrite[:])
}

// eventsPending reports whether a running informer has yet to hear of a
// write made through the cluster: its event is still on its way from etcd,
// and what it will change is not yet in any component's inbox.
func (e *env) eventsPending() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	for k, inf := range e.shared {
		if inf.LastRev() < e.lastWrite[k] { // an informer never takes e.mu
			return true
		}
	}
	return false
}

func (e *env) written(k model.Kind) int64 {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.lastWrite[k]
}

// listWatcher adapts a client.Client to what an informer needs; customs
// reads store.AllCustom and the other unions (store.Union), which a client
// over HTTP cannot name.
type listWatcher struct{ c, customs client.Client }

// reader is the client that reads resource.
func (l listWatcher) reader(resource string) client.Client {
	if store.IsUnion(resource) && l.customs != nil {
		return l.customs
	}
	return l.c
}

func (l listWatcher) List(ctx context.Context, resource, namespace string, o controller.ListOptions) (api.ListObject, error) {
	return l.reader(resource).List(ctx, resource, namespace, registry.ListOptions{LabelSelector: o.LabelSelector, FieldSelector: o.FieldSelector, Limit: o.Limit, Continue: o.Continue, ResourceVersion: o.ResourceVersion})
}

// Watch shares the apiserver's objects when it can: an informer's cache
// only reads them.
func (l listWatcher) Watch(ctx context.Context, resource, namespace, rv string) (<-chan controller.ListWatchEvent, error) {
	c := l.reader(resource)
	watch := c.Watch
	if sw, ok := c.(client.SharedWatcher); ok {
		watch = sw.WatchShared
	}
	in, err := watch(ctx, resource, namespace, rv)
	if err != nil {
		return nil, err
	}
	out := make(chan controller.ListWatchEvent, 64)
	go func() {
		defer close(out)
		for ev := range in {
			ce := controller.ListWatchEvent{Type: ev.Type, Object: ev.Object, Rev: ev.Rev, Err: ev.Err}
			if ce.Rev == 0 && ev.Object != nil {
				ce.Rev, _ = strconv.ParseInt(api.Meta(ev.Object).ResourceVersion, 10, 64)
			}
			select {
			case out <- ce:
			case <-ctx.Done():
				return
			}
		}
	}()
	return out, nil
}

// resourceObjects lists a resource (a model kind's listedResource) at
// revision rv ("" = the latest) and projects it. An object that does not
// project is left out and the first such failure is returned as
// unprojected; err is for the list itself.
func (e *env) resourceObjects(ctx context.Context, resource, rv string) (objs []model.Obj, unprojected, err error) {
	// Only projected: the items may be the registry's own (HandOver).
	list, err := e.lw.reader(resource).List(registry.HandOver(ctx), resource, "", registry.ListOptions{ResourceVersion: rv})
	if err != nil {
		return nil, nil, err
	}
	items := api.Items(list)
	objs = make([]model.Obj, 0, len(items))
	for _, obj := range items {
		o, err := project.ToModel(obj, e.uids)
		if err != nil {
			unprojected = cmp.Or(unprojected, err)
			continue
		}
		objs = append(objs, o)
	}
	return objs, unprojected, nil
}
