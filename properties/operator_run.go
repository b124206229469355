package properties

import (
	"cmp"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"pgregory.net/rapid"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/impl/apiserver"
	convergeclient "github.com/converge-dev/converge/impl/client"
	"github.com/converge-dev/converge/impl/cluster"
	"github.com/converge-dev/converge/impl/crd"
	"github.com/converge-dev/converge/impl/operator"
	"github.com/converge-dev/converge/impl/registry"
	"github.com/converge-dev/converge/impl/store"
	"github.com/converge-dev/converge/model"
	"github.com/converge-dev/converge/properties/crdgen"
	"github.com/converge-dev/converge/traces"
)

// customKind is one kind the operator's CRDs serve, with its generator.
type customKind struct {
	gvk        schema.GroupVersionKind
	resource   string
	namespaced bool
	gen        *crdgen.Generator
}

// operatorRun is one interleaving: a stepped control plane, the CRDs, the
// operator, and the steps taken so far.
type operatorRun struct {
	rt     fataler
	t      testing.TB
	op     Operator
	shared *operatorShared
	ctx    context.Context
	s      *cluster.Stepped
	st     *store.Store // the run's own, dropped when it closes
	reg    *registry.Registry
	host   *operator.Host
	user   client.Client // the harness's own requests: users, drift, oracles
	kinds  []customKind
	chk    *model.Checker
	faults bool
	drawn  int // actions rapid drew
	events []traces.TraceEvent
	states []*model.Snapshot // after each event, digested only when the trace is written
	last   *model.Snapshot   // after the last step: the trace's writes name fields against it
	ended  int               // events before the end (recovery, quiesce, oracles)
	// reference marks the fault-free run the differential oracle compares
	// with; its failures are the harness's.
	reference bool
	// ahead is the reference run started while this run quiesces.
	ahead *referenceAhead
}

// fataler is where a run's failures go: rapid's T for a check, or, for a
// reference run on a goroutine of its own, a referenceFailure.
type fataler interface {
	Helper()
	Fatal(args ...any)
	Fatalf(format string, args ...any)
}

// runOperator is the property CheckOperator checks.
func runOperator(rt *rapid.T, t testing.TB, op Operator, shared *operatorShared) {
	r := newOperatorRun(rt, t, op, shared)
	defer r.close()
	rt.Repeat(map[string]func(*rapid.T){
		"action": func(rt *rapid.T) { r.action(rt) },
	})
	r.end()
}

func newOperatorRun(rt fataler, t testing.TB, op Operator, shared *operatorShared) *operatorRun {
	if op.Scheme == nil || op.Setup == nil || op.CRDs == "" {
		rt.Fatalf("properties: an Operator needs CRDs, a Scheme and Setup")
	}
	if len(op.Namespaces) == 0 {
		op.Namespaces = []string{model.DefaultNamespace}
	}
	if len(op.Names) == 0 {
		op.Names = []string{"a", "b"}
	}
	st := storeFor(t)
	var stepped atomic.Pointer[cluster.Stepped]
	reg := registry.New(registry.Config{Store: st, Clock: func() time.Time {
		if s := stepped.Load(); s != nil {
			return s.Now()
		}
		return time.Unix(0, 0).UTC()
	}})
	s, err := cluster.NewStepped(cluster.SteppedConfig{Store: st, Client: convergeclient.Local(reg)})
	if err != nil {
		rt.Fatal(err)
	}
	stepped.Store(s)
	r := &operatorRun{rt: rt, t: t, op: op, shared: shared, ctx: context.Background(), s: s, st: st, reg: reg, chk: model.NewChecker(), faults: !op.NoFaults}
	ready := false
	defer func() { // rt.Fatal below ends the goroutine: clean up on the way out
		if !ready {
			r.close()
		}
	}()
	crds, err := shared.crds()
	if err != nil {
		rt.Fatalf("properties: read the CRDs: %v", err)
	}
	names, err := reg.Install(r.ctx, crds)
	if err != nil {
		rt.Fatalf("properties: install the CRDs: %v", err)
	}
	srv, err := apiserver.New(apiserver.Config{Registry: reg})
	if err != nil {
		rt.Fatal(err)
	}
	if r.user, err = operator.NewClient(srv.Handler(), op.Scheme, s.NoteExternalWrite); err != nil {
		rt.Fatal(err)
	}
	if err := r.loadKinds(names); err != nil {
		rt.Fatal(err)
	}
	r.apply(model.Action{Op: model.OpAddNode, Who: NodeNames[0]})
	for _, ns := range op.Namespaces {
		r.ensureNamespace(ns)
	}
	r.host, err = operator.Start(operator.Config{Scheme: op.Scheme, Setup: op.Setup, Handler: srv.Handler(), Store: st,
		ListWatcher: s.ListWatcher(), Wrote: s.NoteExternalWrite})
	if err != nil {
		rt.Fatalf("properties: start the operator: %v", err)
	}
	reg.SetAdmission(r.host.Admission())
	ready = true
	return r
}

func (r *operatorRun) close() {
	if r.ahead != nil {
		<-r.ahead.done // a failed check does not leave it running into the next
	}
	if r.host != nil {
		r.host.Close()
	}
	r.reg.UnserveCRDs()
	r.s.Close()
	_ = r.st.Drop(r.ctx) // what is left is history, which the store's owner compacts
}

// loadKinds compiles each installed CRD's storage version for the
// generators.
func (r *operatorRun) loadKinds(names []string) error {
	for _, name := range names {
		o, err := r.reg.Get(r.ctx, "customresourcedefinitions", "", name)
		if err != nil {
			return err
		}
		c := o.(*api.CustomResourceDefinition)
		def := &apiextensionsv1.CustomResourceDefinition{Spec: c.Spec}
		def.Name = c.Name
		if len(r.op.Kinds) > 0 && !slices.Contains(r.op.Kinds, c.Spec.Names.Plural) {
			continue
		}
		for _, v := range c.Spec.Versions {
			if !v.Storage {
				continue
			}
			compiled, err := crd.Compile(def, v.Name)
			if err != nil {
				return fmt.Errorf("CRD %s: %w", name, err)
			}
			gen, err := crdgen.New(compiled, r.op.Fields[c.Spec.Names.Plural]...)
			if err != nil {
				return fmt.Errorf("CRD %s: %w", name, err)
			}
			r.kinds = append(r.kinds, customKind{gvk: schema.GroupVersionKind{Group: c.Spec.Group, Version: v.Name, Kind: c.Spec.Names.Kind},
				resource: c.Spec.Names.Plural, namespaced: c.Spec.Scope == apiextensionsv1.NamespaceScoped, gen: gen})
		}
	}
	if len(r.kinds) == 0 {
		return fmt.Errorf("properties: %s holds no CRD of the Kinds %v", r.op.CRDs, r.op.Kinds)
	}
	return nil
}

func (r *operatorRun) ensureNamespace(ns string) {
	u := &unstructured.Unstructured{}
	u.SetAPIVersion("v1")
	u.SetKind("Namespace")
	u.SetName(ns)
	if err := r.user.Create(r.ctx, u); err != nil && !apierrors.IsAlreadyExists(err) {
		r.fail("create namespace %s: %v", ns, err)
	}
	r.sync()
}

// fail ends the run with the steps taken so far.
func (r *operatorRun) fail(format string, args ...any) {
	r.rt.Helper()
	var b strings.Builder
	if r.reference {
		b.WriteString("in the reference run of the differential oracle: ")
	}
	fmt.Fprintf(&b, format, args...)
	fmt.Fprintf(&b, "\nsteps (%d drawn actions, then the end: recovery, quiesce, oracles):\n", r.drawn)
	for i, e := range r.events {
		if i == r.ended && r.ended > 0 {
			b.WriteString("      ---- the end\n")
		}
		fmt.Fprintf(&b, "%4d  %s\n", e.Seq, stepLine(e))
	}
	if path := r.saveTrace(); path != "" {
		fmt.Fprintf(&b, "trace: %s (converge trace view %s)\n", path, path)
	}
	r.rt.Fatal(b.String())
}

// record adds a step to the run's events; sync fills in its digest.
func (r *operatorRun) record(actor, action, key, detail string, writes []operator.Written) {
	e := traces.TraceEvent{V: traces.Version, Seq: len(r.events) + 1, Actor: actor, Action: action, Key: key, Detail: detail}
	for _, w := range writes {
		e.Writes = append(e.Writes, traces.Write{Verb: w.Verb, Resource: w.Resource, Name: w.Name})
	}
	r.events = append(r.events, e)
	r.states = append(r.states, nil)
}

// sync waits for the operator's informers and checks what holds after
// every step: no reconcile panicked or failed, the harness and the
// control plane had no error, the built-in invariants and the user's.
func (r *operatorRun) sync(writes ...model.Write) {
	r.rt.Helper()
	r.check(nil, writes)
}

// check is sync over snap, the state after the step (nil: take it).
func (r *operatorRun) check(snap *model.Snapshot, writes []model.Write) {
	r.rt.Helper()
	if r.host != nil {
		if err := r.host.Sync(); err != nil {
			r.fail("%v", err)
		}
		if f := r.host.Failures(); len(f) > 0 {
			r.fail("%s", f[0])
		}
		if errs := r.host.Errors(); len(errs) > 0 {
			r.fail("operator harness: %v", errs)
		}
	}
	if errs := r.s.Errors(); len(errs) > 0 {
		r.fail("control plane: %v", errs)
	}
	if snap == nil {
		snap = r.s.Snapshot()
	}
	if n := len(r.events); n > 0 && r.states[n-1] == nil {
		r.states[n-1] = snap
		if r.last != nil {
			nameFields(r.events[n-1].Writes, r.last, snap)
		}
	}
	r.last = snap
	if err := r.chk.Check(snap, writes); err != nil {
		r.fail("%v", err)
	}
	if r.op.Invariant != nil {
		if err := r.op.Invariant(r.ctx, r.user); err != nil {
			r.fail("invariant: %v", err)
		}
	}
}

// apply takes one of the control plane's actions.
func (r *operatorRun) apply(a model.Action) {
	r.rt.Helper()
	res := r.s.Step(a)
	snap := r.last
	if snap == nil || len(res.Writes) > 0 || (a.Op != model.OpDeliver && a.Op != model.OpRelist) {
		snap = r.s.Snapshot() // else a delivery only changed a component's view
	}
	r.events = append(r.events, traces.EventOf(len(r.events)+1, a, res, r.s.Seen(a.Who), snap))
	r.states = append(r.states, snap)
	if res.Err != nil {
		r.fail("%s: %v", a, res.Err)
	}
	r.check(snap, res.Writes)
}

// action draws and takes one step.
func (r *operatorRun) action(rt *rapid.T) {
	r.drawn++
	switch n := rapid.IntRange(0, 19).Draw(rt, "class"); {
	case n < 4:
		r.userAction(rt)
	case n < 12:
		if !r.operatorStep(rt) {
			r.userAction(rt)
		}
	case n < 16:
		steps := r.s.EnabledSteps()
		if len(steps) == 0 {
			r.userAction(rt)
			return
		}
		r.apply(rapid.SampledFrom(steps).Draw(rt, "cluster step"))
	case n < 17:
		r.drift(rt)
	case n < 18:
		r.timers()
	default:
		if r.faults {
			r.fault(rt)
		} else {
			r.userAction(rt)
		}
	}
}

// operatorStep delivers an event to the operator, reconciles a queued
// request, or lets a parked reconcile go on, whichever is drawn; with
// faults, one reconcile in five crashes at a drawn write, and one in five
// has a drawn request to the apiserver fail. It reports false when the
// operator has nothing to do.
func (r *operatorRun) operatorStep(rt *rapid.T) bool {
	deliver, ready, parked := r.host.Deliverable(), r.host.Ready(), r.host.Parked()
	n := len(deliver) + len(ready) + len(parked)
	if n == 0 {
		return false
	}
	// Parked reconciles come first: rapid draws small numbers more often,
	// and a reconcile parked for long is one the others overtake.
	i := rapid.IntRange(0, n-1).Draw(rt, "operator step")
	if i < len(parked) {
		r.proceed(parked[i])
		return true
	}
	if i -= len(parked); i < len(deliver) {
		r.deliver(deliver[i])
		return true
	}
	i -= len(deliver)
	f := operator.NoFaults
	if r.faults {
		switch rapid.IntRange(0, 9).Draw(rt, "reconcile fault") {
		case 0, 1:
			f.CrashAfter = rapid.IntRange(0, 2).Draw(rt, "crash after")
		case 2, 3:
			f.FailRequest = rapid.IntRange(1, 3).Draw(rt, "failing request")
		}
	}
	r.reconcile(ready[i], f)
	return true
}

func (r *operatorRun) deliver(resource string) {
	r.rt.Helper()
	ev, err := r.host.Deliver(resource)
	if err != nil {
		r.fail("%v", err)
	}
	r.record("operator", "deliver", resource, ev, nil)
	r.sync()
}

func (r *operatorRun) reconcile(it operator.Item, f operator.Faults) {
	r.rt.Helper()
	out, err := r.host.Reconcile(it, f)
	fault := ""
	if f.FailRequest > 0 {
		fault = fmt.Sprintf("its request %d fails with a 500", f.FailRequest)
	}
	switch {
	case f.CrashAfter >= 0 && out.Crashed:
		r.record("operator", "reconcile", it.String(), crashed(out), out.Writes)
	case out.Parked:
		r.record("operator", "reconcile", it.String(), joinNotes(fault, "parked before its next write"), out.Writes)
	case f.CrashAfter >= 0:
		r.record("operator", "reconcile", it.String(), fmt.Sprintf("finished before its crash point %d", f.CrashAfter), out.Writes)
	default:
		r.record("operator", "reconcile", it.String(), fault, out.Writes)
	}
	if err != nil {
		r.fail("%v", err)
	}
	r.sync()
}

// proceed lets a parked reconcile (its controller runs several side by
// side) go on to its next write or its end.
func (r *operatorRun) proceed(it operator.Item) {
	r.rt.Helper()
	out, err := r.host.Continue(it)
	switch {
	case out.Crashed:
		r.record("operator", "continue", it.String(), crashed(out), out.Writes)
	case out.Parked:
		r.record("operator", "continue", it.String(), "parked before its next write", out.Writes)
	default:
		r.record("operator", "continue", it.String(), "done", out.Writes)
	}
	if err != nil {
		r.fail("%v", err)
	}
	r.sync()
}

// crashed is the trace's account of a crash, naming the reconciles it
// ended midway.
func crashed(out operator.Outcome) string {
	s := fmt.Sprintf("crashed after %d writes, restarted", len(out.Writes))
	return joinNotes(s, killed(out.Killed))
}

// killed names the parked reconciles that a restart ends.
func killed(items []operator.Item) string {
	if len(items) == 0 {
		return ""
	}
	names := make([]string, len(items))
	for i, it := range items {
		names[i] = it.String()
	}
	return "ending the parked " + strings.Join(names, ", ")
}

// joinNotes joins two notes of a step's detail, either of them empty.
func joinNotes(a, b string) string {
	if a == "" || b == "" {
		return a + b
	}
	return a + "; " + b
}

// timers lets the logical clock run to the operator's next delayed
// request (RequeueAfter, a retry's backoff).
func (r *operatorRun) timers() {
	at, ok := r.host.NextTimer()
	if !ok {
		return
	}
	r.host.FireTimers()
	r.record("operator", "time", "", fmt.Sprintf("time passes to %s", at), nil)
	r.sync()
}

// fault injects one fault into the operator (a restart, one against a
// lagging apiserver, a dropped watch) or the control plane. A reconcile's
// own faults (crash points, API errors) are drawn with it.
func (r *operatorRun) fault(rt *rapid.T) {
	switch rapid.IntRange(0, 3).Draw(rt, "fault") {
	case 0:
		r.record("fault", "restart", "operator", joinNotes("the operator restarts", killed(r.host.Parked())), nil)
		if err := r.host.Restart(); err != nil {
			r.fail("%v", err)
		}
	case 1:
		r.record("fault", "timetravel", "operator", joinNotes("the operator restarts against a lagging apiserver (time travel)", killed(r.host.Parked())), nil)
		if err := r.host.RestartLagging(); err != nil {
			r.fail("%v", err)
		}
	case 2:
		watched := r.host.Watched()
		if len(watched) == 0 {
			return
		}
		gvk := rapid.SampledFrom(watched).Draw(rt, "watch")
		res := r.resourceOf(gvk)
		r.record("fault", "dropwatch", res, "the operator's watch drops; it relists", nil)
		if err := r.host.DropWatch(res); err != nil {
			r.fail("%v", err)
		}
	default:
		faults := r.s.EnabledFaults()
		r.apply(rapid.SampledFrom(faults).Draw(rt, "cluster fault"))
		return
	}
	r.sync()
}

func (r *operatorRun) resourceOf(gvk schema.GroupVersionKind) string {
	m, err := r.user.RESTMapper().RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		r.fail("%v", err)
	}
	return m.Resource.Resource
}

// userAction creates, updates or deletes a custom resource.
func (r *operatorRun) userAction(rt *rapid.T) {
	k := r.kinds[rapid.IntRange(0, len(r.kinds)-1).Draw(rt, "kind")]
	ns := ""
	if k.namespaced {
		ns = rapid.SampledFrom(r.op.Namespaces).Draw(rt, "namespace")
	}
	name := rapid.SampledFrom(r.op.Names).Draw(rt, "name")
	// What a user action draws depends on what it drew, not on the
	// object's state, so that when the shrinker removes an earlier action
	// a later one keeps its meaning: a delete stays a delete (of nothing,
	// once the create is gone), and a create or an update draws an object.
	del := rapid.IntRange(0, 2).Draw(rt, "write or delete") == 0
	var obj map[string]any
	field := ""
	if !del {
		obj = k.gen.Object(ns, name).Draw(rt, "object")
		if spec, _ := obj["spec"].(map[string]any); len(spec) > 0 && rapid.Bool().Draw(rt, "one field?") {
			fields := make([]string, 0, len(spec))
			for f := range spec {
				fields = append(fields, f)
			}
			slices.Sort(fields)
			field = rapid.SampledFrom(fields).Draw(rt, "field")
		}
	}
	cur := &unstructured.Unstructured{}
	cur.SetGroupVersionKind(k.gvk)
	err := r.user.Get(r.ctx, client.ObjectKey{Namespace: ns, Name: name}, cur)
	exists := err == nil
	if err != nil && !apierrors.IsNotFound(err) {
		r.fail("get %s %s: %v", k.resource, name, err)
	}
	switch {
	case del:
		detail := ""
		if !exists {
			detail = "absent: nothing to delete"
		}
		r.record("user", "delete", k.resource+"/"+model.Key(ns, name), detail, nil)
		if exists {
			if err := r.user.Delete(r.ctx, cur); err != nil && !apierrors.IsNotFound(err) {
				r.fail("delete %s %s: %v", k.resource, name, err)
			}
		}
	case !exists:
		r.record("user", "create", k.resource+"/"+model.Key(ns, name), compactJSON(obj["spec"]), nil)
		if err := r.user.Create(r.ctx, &unstructured.Unstructured{Object: obj}); err != nil && !r.refused(err) {
			r.fail("create %s %s: %v", k.resource, name, err)
		}
	default:
		spec, _ := obj["spec"].(map[string]any)
		if spec == nil {
			spec = map[string]any{}
		}
		if old, ok := cur.Object["spec"].(map[string]any); ok && field != "" {
			// Users mostly change one thing at a time: the drawn spec's
			// value of one field, the rest as it was.
			old[field] = spec[field]
			spec = old
		}
		cur.Object["spec"] = spec
		r.record("user", "update", k.resource+"/"+model.Key(ns, name), compactJSON(spec), nil)
		if err := r.user.Update(r.ctx, cur); err != nil && !apierrors.IsConflict(err) && !r.refused(err) {
			r.fail("update %s %s: %v", k.resource, name, err)
		}
	}
	r.host.IntentChanged(string(cur.GetUID()))
	r.sync()
}

// drift is another writer: it deletes an object the operator owns, or
// changes its spec (replicas, data) or its labels.
func (r *operatorRun) drift(rt *rapid.T) {
	var owned []*unstructured.Unstructured
	for _, gvk := range r.host.Watched() {
		if r.isCustom(gvk) {
			continue
		}
		l := &unstructured.UnstructuredList{}
		l.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
		if err := r.user.List(r.ctx, l); err != nil {
			r.fail("list %s: %v", gvk.Kind, err)
		}
		for i := range l.Items {
			o := &l.Items[i]
			if len(o.GetOwnerReferences()) > 0 && o.GetDeletionTimestamp() == nil && r.ownedByCustom(o) {
				o.SetGroupVersionKind(gvk)
				owned = append(owned, o)
			}
		}
	}
	if len(owned) == 0 {
		return
	}
	o := rapid.SampledFrom(owned).Draw(rt, "drifted")
	what := fmt.Sprintf("%s %s", strings.ToLower(o.GetKind()), model.Key(o.GetNamespace(), o.GetName()))
	if rapid.Bool().Draw(rt, "delete?") {
		r.record("drift", "delete", what, "another writer deletes it", nil)
		if err := r.user.Delete(r.ctx, o); err != nil && !apierrors.IsNotFound(err) {
			r.fail("drift: %v", err)
		}
		r.sync()
		return
	}
	switch {
	case hasInt(o, "spec", "replicas"):
		n, _, _ := unstructured.NestedInt64(o.Object, "spec", "replicas")
		_ = unstructured.SetNestedField(o.Object, (n+1)%4, "spec", "replicas")
		r.record("drift", "update", what, fmt.Sprintf("another writer sets spec.replicas to %d", (n+1)%4), nil)
	case hasData(o):
		data := o.Object["data"].(map[string]any)
		keys := make([]string, 0, len(data))
		for k := range data {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		data[keys[0]] = "drifted"
		if o.GetKind() == "Secret" { // a Secret's data is base64
			data[keys[0]] = base64.StdEncoding.EncodeToString([]byte("drifted"))
		}
		r.record("drift", "update", what, "another writer sets data."+keys[0], nil)
	default:
		labels := o.GetLabels()
		if labels == nil {
			labels = map[string]string{}
		}
		labels["converge.dev/drift"] = "true"
		o.SetLabels(labels)
		r.record("drift", "update", what, "another writer labels it", nil)
	}
	if err := r.user.Update(r.ctx, o); err != nil && !apierrors.IsConflict(err) && !apierrors.IsNotFound(err) && !r.refused(err) {
		r.fail("drift: %v", err)
	}
	r.sync()
}

// refused says whether err is the server refusing what a user or another
// writer sent, as it would in a cluster, and notes it on the step: one of
// the operator's admission webhooks denied it, or it is invalid (a drawn
// field merged into the stored spec can break a rule across fields).
func (r *operatorRun) refused(err error) bool {
	if !strings.HasPrefix(err.Error(), "admission webhook ") && !apierrors.IsInvalid(err) {
		return false
	}
	e := &r.events[len(r.events)-1]
	e.Detail = strings.TrimPrefix(e.Detail+"; refused: "+err.Error(), "; ")
	return true
}

func hasData(o *unstructured.Unstructured) bool {
	data, ok := o.Object["data"].(map[string]any)
	return ok && len(data) > 0
}

func hasInt(o *unstructured.Unstructured, path ...string) bool {
	_, ok, err := unstructured.NestedInt64(o.Object, path...)
	return ok && err == nil
}

func (r *operatorRun) isCustom(gvk schema.GroupVersionKind) bool {
	for _, k := range r.kinds {
		if k.gvk.GroupKind() == gvk.GroupKind() {
			return true
		}
	}
	return false
}

func (r *operatorRun) ownedByCustom(o *unstructured.Unstructured) bool {
	for _, ref := range o.GetOwnerReferences() {
		if gv, err := schema.ParseGroupVersion(ref.APIVersion); err == nil && r.isCustom(gv.WithKind(ref.Kind)) {
			return true
		}
	}
	return false
}

// maxTimerRounds bounds how often the quiesce lets time pass: an operator
// that requeues itself forever still quiesces between its timers.
const maxTimerRounds = 20

// maxOperatorQuiesceSteps bounds the operator's deliveries and reconciles
// in one quiesce: one that takes more keeps waking itself up. A settled
// operator takes a few per object it owns.
const maxOperatorQuiesceSteps = 400

// maxOperatorQuiesceWrites bounds the operator's writes in one quiesce,
// which catches a loop of writes sooner.
const maxOperatorQuiesceWrites = 100

// end recovers from the faults, quiesces, and checks convergence and the
// fixed point.
func (r *operatorRun) end() {
	r.rt.Helper()
	r.ended = len(r.events)
	for _, a := range r.s.Recovery() {
		r.apply(a)
	}
	r.startReference()
	r.quiesce()
	snap := r.s.Snapshot()
	if err := cmp.Or(model.Converged(snap), nothingTerminating(snap)); err != nil {
		r.fail("not converged: %v", err) // one call: rapid shrinks a failure to one of the same place
	}
	if r.op.Converged != nil {
		if err := r.op.Converged(r.ctx, r.user); err != nil {
			r.fail("not converged: %v", err)
		}
	}
	before := r.host.Writes()
	r.record("oracle", "resync", "", "every object, to check the fixed point", nil)
	r.host.Resync()
	r.drain()
	if n := r.host.Writes() - before; n > 0 {
		r.fail("fixed point: after the run quiesced, a resync made %d writes", n)
	}
	r.differential()
}

// quiesce runs the operator and the control plane fairly until neither
// has anything to do: events first, then reconciles, then the control
// plane (whose garbage collector follows custom resources too), then the
// operator's timers.
func (r *operatorRun) quiesce() {
	r.rt.Helper()
	timers, operatorSteps, writes := 0, 0, r.host.Writes()
	for i := 0; ; i++ {
		if i > MaxQuiesceSteps {
			r.fail("quiesce did not finish in %d steps", MaxQuiesceSteps)
		}
		if r.operatorNext() {
			if operatorSteps++; operatorSteps > maxOperatorQuiesceSteps {
				r.fail("the operator never settles: %d of its steps in the quiesce, and it still has work (a write that triggers itself?)", maxOperatorQuiesceSteps)
			}
			if n := r.host.Writes() - writes; n > maxOperatorQuiesceWrites {
				r.fail("the operator never settles: %d writes in the quiesce, and it still has work (a write that triggers itself?)", n)
			}
			continue
		}
		if a, ok := r.s.NextQuiesceStep(); ok {
			r.apply(a)
			continue
		}
		if _, ok := r.host.NextTimer(); ok && timers < maxTimerRounds {
			timers++
			r.timers()
			continue
		}
		return
	}
}

// drain runs the operator alone until it has nothing to do.
func (r *operatorRun) drain() {
	for i := 0; r.operatorNext(); i++ {
		if i > MaxQuiesceSteps {
			r.fail("the operator did not settle in %d steps", MaxQuiesceSteps)
		}
	}
}

// operatorNext takes the operator's first pending step, if any.
func (r *operatorRun) operatorNext() bool {
	if parked := r.host.Parked(); len(parked) > 0 {
		r.proceed(parked[0])
		return true
	}
	if d := r.host.Deliverable(); len(d) > 0 {
		r.deliver(d[0])
		return true
	}
	if ready := r.host.Ready(); len(ready) > 0 {
		r.reconcile(ready[0], operator.NoFaults)
		return true
	}
	return false
}

// stepLine is one step as the failure prints it.
func stepLine(e traces.TraceEvent) string {
	if e.Script != "" {
		return fmt.Sprintf("%-9s %s", "cluster", e.Script)
	}
	line := fmt.Sprintf("%-9s %s", e.Actor, e.Action)
	for _, part := range []string{e.Key, e.Detail} {
		if part != "" {
			line += " " + part
		}
	}
	if len(e.Writes) > 0 {
		ws := make([]string, len(e.Writes))
		for i, w := range e.Writes {
			ws[i] = w.Verb + " " + w.Resource + "/" + w.Name
		}
		line += " -> " + strings.Join(ws, ", ")
	} else if e.Action == "reconcile" || e.Action == "continue" {
		line += " -> no write"
	}
	return line
}

// saveTrace writes the run's events where failures go (FailureTraceEnv),
// for converge trace view; it returns the path, or "" if it could not.
func (r *operatorRun) saveTrace() string {
	path := defaultFailureTrace()
	f, err := os.Create(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	w := traces.NewWriter(f)
	for i, e := range r.events {
		if r.states[i] != nil {
			e.Digest = r.states[i].Digest()
		} else {
			e.Digest = traces.Digest([]byte(stepLine(e))) // the step failed before the state was read
		}
		if w.Write(e) != nil {
			return ""
		}
	}
	if w.Close() != nil {
		return ""
	}
	return path
}

// compactJSON is v as one line of JSON, for the steps' log.
func compactJSON(v any) string {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(data)
}

// nothingTerminating: no object is still being deleted. model.Converged
// lets users' finalizers hold objects, but no user here adds one: a
// finalizer left once all is quiet is the operator's, never removed.
func nothingTerminating(snap *model.Snapshot) error {
	var stuck []string
	for ref, o := range snap.Objects {
		if m := model.MetaOf(o); m.Deleting {
			stuck = append(stuck, fmt.Sprintf("%s (finalizers %v)", ref, m.Finalizers))
		}
	}
	if len(stuck) == 0 {
		return nil
	}
	slices.Sort(stuck)
	if len(stuck) == 1 {
		return fmt.Errorf("%s is still terminating: nothing removes its finalizers", stuck[0])
	}
	return fmt.Errorf("%s are still terminating: nothing removes their finalizers", strings.Join(stuck, ", "))
}

// nameFields names the fields each of a step's writes changed, from the
// snapshots before and after the step, as the control plane's writes have
// them in a trace. A write is found by its resource and name; one that
// matches no object, or two (one name in two namespaces), names none.
func nameFields(writes []traces.Write, before, after *model.Snapshot) {
	for i, w := range writes {
		if w.Err != "" {
			continue
		}
		matches := map[model.Ref]bool{}
		for _, objs := range []map[model.Ref]model.Obj{before.Objects, after.Objects} {
			for r := range objs {
				if r.Name == w.Name && resourceOf(r) == w.Resource {
					matches[r] = true
				}
			}
		}
		if len(matches) != 1 {
			continue
		}
		for r := range matches {
			if f := after.ChangedFields(before.Objects[r], after.Objects[r]); len(f) > 0 {
				writes[i].Fields = f
			}
		}
	}
}

// resourceOf is the plural resource name of r's kind ("webapps" for
// webapps.webapp.example.com).
func resourceOf(r model.Ref) string {
	if r.Type == "" {
		return r.Kind.Resource()
	}
	resource, _, _ := strings.Cut(r.Type, ".")
	return resource
}
