package cluster

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/impl/project"
	"github.com/converge-dev/converge/impl/registry"
	"github.com/converge-dev/converge/impl/store"
	"github.com/converge-dev/converge/model"
)

// errCrashPoint stops a reconcile at a crash-after-k point.
var errCrashPoint = errors.New("cluster: component crashed at its crash point")

// writer turns one reconcile's decisions into API calls: the
// implementation's model.Writer. It records every attempt as a model.Write,
// so the stepped driver returns the same Result shape as the model.
type writer struct {
	ctx    context.Context
	c      *component
	writes []model.Write
	limit  int // writes allowed before a crash; <0: none
	failed bool
	polled bool // Retry ended the reconcile
	// reconciling: the writes are a reconcile's, which an armed api-error
	// fails (a heartbeat's are not, as in the model).
	reconciling bool
	// stored hears the store's writes under ctx when the client is
	// in-process: removalRev reads a removal's revision from it.
	stored store.Writes
}

var _ model.Writer = (*writer)(nil)

// newWriter makes a writer whose API calls hand their objects over to the
// registry (registry.HandOver) when the client is in-process: the writer
// builds each object for one call and only reads the answer.
func newWriter(ctx context.Context, c *component, limit int) *writer {
	w := &writer{c: c, limit: limit}
	w.ctx = store.WithWrites(registry.HandOver(ctx), &w.stored)
	return w
}

func (w *writer) Stopped() bool { return w.failed || w.crashed() }

// Retry ends the reconcile as unfinished: its key is requeued with backoff.
func (w *writer) Retry() { w.failed, w.polled = true, true }

// crashed reports whether the crash point has been reached.
func (w *writer) crashed() bool { return w.limit >= 0 && len(w.writes) >= w.limit }

// record keeps one attempted store write; it projects the stored result.
// A final delete has no After; its Rev is the deletion's revision, which
// the registry returns as the deleted object's resourceVersion. A final
// update's answer does not have it: see removalRev.
func (w *writer) record(verb model.Verb, ref model.Ref, before model.Obj, stored api.Object, final bool, err error) int64 {
	wr := model.Write{Actor: w.c.name, Verb: verb, Ref: ref, Before: before, Err: modelError(err, ref)}
	if err == nil && stored != nil {
		wr.Rev = revOf(stored)
		if final && verb != model.VerbDelete { // see removalRev
			var rerr error
			if wr.Rev, rerr = w.removalRev(ref, wr.Rev); rerr != nil {
				wr.Err = rerr
			}
		}
		if !final {
			after, perr := w.c.env.ownWrites.project(stored, w.c.env.uids)
			if perr != nil {
				wr.Err = perr
			}
			wr.After = after
		}
	}
	w.writes = append(w.writes, wr)
	if k, followed := kindOf(project.ResourceOf(ref)); followed { // an Event's write has no informer to wait for
		w.c.env.noteWrite(k, wr.Rev)
	}
	if rec := w.c.env.events; rec != nil && wr.Err == nil && err == nil {
		rec.observe(w.c.name, wr, stored)
	}
	if wr.Err != nil {
		w.failed = true
		return 0
	}
	return wr.Rev
}

func revOf(o api.Object) int64 {
	rv, _ := strconv.ParseInt(api.Meta(o).ResourceVersion, 10, 64)
	return rv
}

// template is what the model does not carry for a create: the owner's pod
// template, from the component's own cache.
func (w *writer) template(o model.Obj) api.Object {
	m := model.MetaOf(o)
	ow := m.Owner
	if _, claim := o.(*model.PersistentVolumeClaim); claim && ow.Kind != model.KindStatefulSet {
		return w.claimTemplate(m)
	}
	if ow.UID == 0 {
		return nil
	}
	if inf := w.c.inf[ow.Kind]; inf != nil {
		if t, ok := inf.Cache().Get(m.Namespace, ow.Name); ok {
			return t
		}
	}
	t, err := w.c.env.client.Get(w.ctx, project.ResourceOf(model.OwnerRef(m)), m.Namespace, ow.Name)
	if err != nil {
		return nil
	}
	return t
}

func (w *writer) Create(o model.Obj) int64 {
	return w.create(o, "")
}

func (w *writer) CreateGenerated(prefix string, o model.Obj) int64 {
	return w.create(o, prefix)
}

func (w *writer) create(o model.Obj, prefix string) int64 {
	if w.Stopped() || w.transient() {
		return 0
	}
	deleting := model.OwnerDeletingIn(w.c.mem, o)
	obj, err := w.send(o, prefix)
	return w.recordCreate(o, obj, deleting, err)
}

// recordCreate records a create; deleting is whether the component's view
// showed the owner being deleted when it decided.
func (w *writer) recordCreate(o model.Obj, obj api.Object, deleting bool, err error) int64 {
	rev := w.record(model.VerbCreate, model.RefOf(o), nil, obj, false, err)
	w.writes[len(w.writes)-1].OwnerDeleting = deleting
	return rev
}

// send makes o's create, naming o as created.
func (w *writer) send(o model.Obj, prefix string) (api.Object, error) {
	obj, err := project.New(o, w.template(o), w.c.env.uids)
	if err == nil {
		if prefix != "" {
			api.Meta(obj).Name, api.Meta(obj).GenerateName = "", prefix
		}
		obj, err = w.c.env.client.Create(w.ctx, obj)
	}
	if err == nil {
		model.MetaOf(o).Name = api.Meta(obj).Name
	}
	return obj, err
}

// createWorkers is how many creates of a batch run at once.
const createWorkers = 32

// CreateGeneratedAll creates objs one after another in the stepped
// driver, as the model does. The running driver creates them in
// slow-start batches of 1, 2, 4 and so on, each batch at once and without
// the component's lock, as upstream's replicaset controller does; a batch
// with a failure is the last. With one create at a time, a thousand
// replicas were created no faster than one etcd round trip each, and every
// other component waited on them.
func (w *writer) CreateGeneratedAll(prefix string, objs []model.Obj) int64 {
	if w.c.env.stepped {
		return model.CreateEach(w, prefix, objs)
	}
	var rev int64
	for size := 1; len(objs) > 0 && !w.Stopped(); size *= 2 {
		batch := objs[:min(size, len(objs))]
		objs = objs[len(batch):]
		sent := make([]api.Object, len(batch))
		errs := make([]error, len(batch))
		deleting := make([]bool, len(batch))
		for i, o := range batch {
			deleting[i] = model.OwnerDeletingIn(w.c.mem, o)
		}
		w.unlocked(func() {
			// A few goroutines take the batch's creates in turn: one per
			// create spent more on growing their stacks than on creating.
			var next atomic.Int64
			var wg sync.WaitGroup
			for range min(len(batch), createWorkers) {
				wg.Go(func() {
					for i := int(next.Add(1)) - 1; i < len(batch); i = int(next.Add(1)) - 1 {
						sent[i], errs[i] = w.send(batch[i], prefix)
					}
				})
			}
			wg.Wait()
		})
		for i, o := range batch {
			rev = max(rev, w.recordCreate(o, sent[i], deleting[i], errs[i]))
		}
	}
	return rev
}

// base is the API object a model object was projected from.
func (w *writer) base(o model.Obj) (api.Object, error) {
	m := model.MetaOf(o)
	if inf := w.c.inf[o.Kind()]; inf != nil {
		if b, ok := inf.Cache().Get(m.Namespace, m.Name); ok {
			return b, nil
		}
	}
	return w.c.env.client.Get(w.ctx, project.ResourceOf(model.RefOf(o)), m.Namespace, m.Name)
}

func (w *writer) Update(verb model.Verb, before, after model.Obj) int64 {
	if w.Stopped() || w.transient() {
		return 0
	}
	after, write := w.gateReady(verb, before, after) // readiness probes (real runtimes only)
	if !write {
		return 0
	}
	var sent, stored api.Object
	base, err := w.base(before)
	if err == nil {
		sent, err = project.Apply(base, after, w.c.env.uids)
	}
	if err == nil {
		api.Meta(sent).ResourceVersion = strconv.FormatInt(model.MetaOf(before).Version, 10)
		if p, ok := sent.(*api.Pod); ok && verb == model.VerbStatus && w.c.name == model.KubeletName(model.NodeOf(w.c.name)) {
			kubeletStatus(p, api.Unix(w.c.env.now()))
		}
		w.stored.Take() // what this call writes is all removalRev reads
		switch verb {
		case model.VerbStatus:
			stored, err = w.c.env.client.UpdateStatus(w.ctx, sent)
		case model.VerbFinalize:
			ns, _ := sent.(*api.Namespace)
			stored, err = w.c.env.client.FinalizeNamespace(w.ctx, ns)
		default:
			stored, err = w.c.env.client.Update(w.ctx, sent)
		}
	}
	return w.record(verb, model.RefOf(after), before, stored, err == nil && removedByUpdate(sent), err)
}

func (w *writer) Bind(p *model.Pod, node string) int64 {
	if w.Stopped() || w.transient() {
		return 0
	}
	var stored api.Object
	var err error
	assumed := w.assume(p, node)
	w.unlocked(func() {
		stored, err = w.c.env.client.Bind(w.ctx, p.Namespace, p.Name, node, strconv.FormatInt(p.Version, 10))
	})
	if err != nil && assumed != nil && w.c.mem.Get(model.KindPod, model.KeyOf(p)) == model.Obj(assumed) {
		w.c.mem.Put(p) // nothing newer came meanwhile: as it was
	}
	return w.record(model.VerbBind, model.RefOf(p), p, stored, false, err)
}

// assume puts p, bound to node, in the running scheduler's memory while
// the binding is in flight, as upstream's scheduler assumes a pod in its
// cache: the workers deciding meanwhile count it on its node. Without it,
// a burst of pending pods all went to the node that looked emptiest until
// the bindings' events came back. The binding's event replaces it. (The
// stepped driver binds one pod at a time, and its memory must be the
// model's.)
func (w *writer) assume(p *model.Pod, node string) *model.Pod {
	if w.c.env.stepped {
		return nil
	}
	a := *p
	a.NodeName = node
	w.c.mem.Put(&a)
	return &a
}

// unlocked makes a store call without the component's lock in running
// mode, so that the component's other workers decide meanwhile (the
// scheduler runs several: upstream binds asynchronously). The decision
// before the call read the memory under the lock, and the memory's
// objects are immutable, so nothing it holds changes under it.
func (w *writer) unlocked(call func()) {
	if w.c.env.stepped {
		call()
		return
	}
	w.c.mu.Unlock()
	defer w.c.mu.Lock()
	call()
}

func (w *writer) Delete(o model.Obj) int64 { return w.delete(o, model.PropagateDefault, nil) }

func (w *writer) DeleteWith(o model.Obj, p model.Propagation) int64 { return w.delete(o, p, nil) }

func (w *writer) RemoveNow(o model.Obj) int64 {
	zero := int64(0)
	return w.delete(o, model.PropagateDefault, &zero)
}

// propagationPolicies are the API's names of the model's policies.
var propagationPolicies = map[model.Propagation]api.DeletionPropagation{
	model.PropagateBackground: api.DeletePropagationBackground,
	model.PropagateForeground: api.DeletePropagationForeground,
	model.PropagateOrphan:     api.DeletePropagationOrphan,
}

func (w *writer) delete(o model.Obj, p model.Propagation, grace *int64) int64 {
	if w.Stopped() || w.transient() {
		return 0
	}
	rv := strconv.FormatInt(model.MetaOf(o).Version, 10)
	opts := api.DeleteOptions{GracePeriodSeconds: grace, Preconditions: &api.Preconditions{ResourceVersion: &rv}}
	if policy, ok := propagationPolicies[p]; ok {
		opts.PropagationPolicy = &policy
	}
	stored, err := w.c.env.client.Delete(w.ctx, project.ResourceOf(model.RefOf(o)), model.MetaOf(o).Namespace, model.MetaOf(o).Name, opts)
	if err != nil || stored == nil {
		return w.record(model.VerbDelete, model.RefOf(o), o, nil, true, err)
	}
	if revOf(stored) == model.MetaOf(o).Version {
		return 0 // already being deleted as asked: nothing was written, as in the model
	}
	return w.record(model.VerbDelete, model.RefOf(o), o, stored, removedByDelete(stored, grace), err)
}

// removedByDelete tells whether a delete's answer is the object's last
// value: removed, unless finalizers hold it or the delete only marked it
// for its kubelet (a grace period left, and none of 0 asked).
func removedByDelete(stored api.Object, grace *int64) bool {
	m := api.Meta(stored)
	waits := grace == nil && m.DeletionGracePeriodSeconds != nil && *m.DeletionGracePeriodSeconds > 0
	return len(m.Finalizers) == 0 && !waits && !namespaceFinalizing(stored)
}

// namespaceFinalizing: stored is a namespace whose spec finalizers still
// hold it.
func namespaceFinalizing(stored api.Object) bool {
	ns, ok := stored.(*api.Namespace)
	return ok && len(ns.Spec.Finalizers) > 0
}

// removedByUpdate tells whether a successful update of sent deleted the
// object: it was being deleted, with no grace period left, and the update
// took its last finalizer, so the apiserver deleted it instead of writing
// it, and answered with its last stored value.
func removedByUpdate(sent api.Object) bool {
	m := api.Meta(sent)
	return m.DeletionTimestamp != nil && len(m.Finalizers) == 0 && (m.DeletionGracePeriodSeconds == nil || *m.DeletionGracePeriodSeconds == 0) && !namespaceFinalizing(sent)
}

// local records a node-local effect; it counts as a write for crash points.
func (w *writer) local(verb model.Verb, what string, err error) bool {
	if w.Stopped() {
		return false
	}
	w.writes = append(w.writes, model.Write{Actor: w.c.name, Verb: verb, Local: what, Err: err})
	if err != nil {
		w.failed = true
	}
	return err == nil
}

func (w *writer) StartContainer(c model.Container) bool {
	if w.Stopped() {
		return false
	}
	if w.holdRestart(c) {
		return false // crash back-off (real runtimes only): requeued
	}
	err := w.claimIP(c)
	if err == nil {
		err = w.c.env.nodes.start(w.ctx, c, w.pod(c.Pod))
	}
	w.noteImagePull(c, err)
	return w.local(model.VerbRuntimeStart, "containers/"+c.ID, err)
}

func (w *writer) StopContainer(c model.Container) bool {
	if w.Stopped() {
		return false
	}
	err := w.c.env.nodes.stop(w.ctx, c, w.stopGrace(c))
	if err == nil {
		w.releaseIP(c)
	}
	return w.local(model.VerbRuntimeStop, "containers/"+c.ID, err)
}

func (w *writer) SetRule(service string, r model.Rule) bool {
	if w.Stopped() {
		return false
	}
	w.c.env.nodes.setRule(w.c.node, service, &r)
	return w.local(model.VerbProxySet, "rules/"+service, nil)
}

func (w *writer) DeleteRule(service string) bool {
	if w.Stopped() {
		return false
	}
	w.c.env.nodes.setRule(w.c.node, service, nil)
	return w.local(model.VerbProxyDel, "rules/"+service, nil)
}

// modelError maps API errors onto the model's, worded as the model words
// them, so a write fails the same way in both.
func modelError(err error, ref model.Ref) error {
	var sentinel error
	switch {
	case err == nil:
		return nil
	case api.IsNotFound(err):
		sentinel = model.ErrNotFound
	case api.IsAlreadyExists(err):
		sentinel = model.ErrAlreadyExists
	case api.IsConflict(err) && strings.Contains(err.Error(), "not ready"):
		return model.ErrNodeNotReady
	case api.IsConflict(err):
		sentinel = model.ErrConflict
	case finalizerForbidden(err):
		sentinel = model.ErrFinalizerForbidden
	case hasCause(err, 403, "NamespaceTerminating"):
		sentinel = model.ErrNamespaceTerminating
	default:
		return err
	}
	return fmt.Errorf("%w: %s", sentinel, ref)
}

// finalizerForbidden: the 422 for a finalizer added to an object being
// deleted.
func finalizerForbidden(err error) bool {
	return hasCauseOn(err, 422, api.CauseTypeFieldValueForbidden, "metadata.finalizers")
}

// hasCause: an API error with this code and a status cause of this type
// (a create in a Terminating namespace: 403, NamespaceTerminating).
func hasCause(err error, code int32, cause api.CauseType) bool {
	return hasCauseOn(err, code, cause, "")
}

// hasCauseOn is hasCause for a cause on field ("" for any field).
func hasCauseOn(err error, code int32, cause api.CauseType, field string) bool {
	var se *api.StatusError
	if !errors.As(err, &se) || se.Status.Code != code || se.Status.Details == nil {
		return false
	}
	for _, c := range se.Status.Details.Causes {
		if c.Type == cause && (field == "" || c.Field == field) {
			return true
		}
	}
	return false
}
