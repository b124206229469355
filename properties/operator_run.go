package properties

import (
	"context"
	"fmt"
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
	counts     []string // the replica counts its status schema declares (oracle_status_counts.go)
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
	// inputs is the string leaves of the specs the user wrote
	// (userValue), read on the operator's goroutine during a reconcile.
	inputs map[string]bool
	// numbers is the number leaves of those specs (userNumber).
	numbers map[int64]bool
	// refusedOwners is the custom resources (namespace/name) whose user
	// input a reconcile passed on and the apiserver refused (refusedNote).
	refusedOwners map[string]bool
	// seen follows the run for the oracles that need its history;
	// drifted, the drift's writes the missing-watch oracle looks for.
	seen    *observer
	drifted map[string]driftMark
	// hist is the run's inputs, which the reference run replays.
	hist history
	// lost is the other writer's fields the lost-updates oracle keeps.
	lost lostUpdates
	// deletes is the operator's deletes, by step (oracle_destructive.go).
	deletes []stepDelete
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
	passed := false
	if shared.ended != nil {
		defer func() { shared.ended(r.events, r.drawn, !passed || rt.Failed()) }()
	}
	rt.Repeat(map[string]func(*rapid.T){
		"action": func(rt *rapid.T) { r.action(rt) },
	})
	r.end()
	passed = true
}

func newOperatorRun(rt fataler, t testing.TB, op Operator, shared *operatorShared) *operatorRun {
	if op.Scheme == nil || op.Setup == nil || op.CRDs == "" {
		rt.Fatalf("properties: an Operator needs CRDs, a Scheme and Setup")
	}
	if err := checkSkip(op.Skip); err != nil {
		rt.Fatal(err)
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
	r := &operatorRun{rt: rt, t: t, op: op, shared: shared, ctx: context.Background(), s: s, st: st, reg: reg, chk: model.NewChecker(), faults: !op.NoFaults,
		seen: newObserver(), drifted: map[string]driftMark{}}
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
		ListWatcher: s.ListWatcher(), Wrote: s.NoteExternalWrite, UserInput: r.userValue})
	if err != nil {
		rt.Fatalf("properties: start the operator: %v", err)
	}
	reg.SetAdmission(r.host.Admission())
	if op.NoWorldFaults {
		s.DisableWorldFaults()
	}
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
	var err error
	r.kinds, err = loadCustomKinds(r.ctx, r.reg, names, r.op.Kinds, r.op.Fields, r.op.CRDs)
	return err
}

// loadCustomKinds compiles the storage version of each CRD installed
// under names, of the kinds (plurals; all if empty), with a generator
// constrained by fields; dir names the CRDs in the error when none is
// left.
func loadCustomKinds(ctx context.Context, reg *registry.Registry, names, kinds []string, fields map[string][]crdgen.Option, dir string) ([]customKind, error) {
	var out []customKind
	for _, name := range names {
		o, err := reg.Get(ctx, "customresourcedefinitions", "", name)
		if err != nil {
			return nil, err
		}
		c := o.(*api.CustomResourceDefinition)
		def := &apiextensionsv1.CustomResourceDefinition{Spec: c.Spec}
		def.Name = c.Name
		if len(kinds) > 0 && !slices.Contains(kinds, c.Spec.Names.Plural) {
			continue
		}
		for _, v := range c.Spec.Versions {
			if !v.Storage {
				continue
			}
			compiled, err := crd.Compile(def, v.Name)
			if err != nil {
				return nil, fmt.Errorf("CRD %s: %w", name, err)
			}
			gen, err := crdgen.New(compiled, fields[c.Spec.Names.Plural]...)
			if err != nil {
				return nil, fmt.Errorf("CRD %s: %w", name, err)
			}
			out = append(out, customKind{gvk: schema.GroupVersionKind{Group: c.Spec.Group, Version: v.Name, Kind: c.Spec.Names.Kind},
				resource: c.Spec.Names.Plural, namespaced: c.Spec.Scope == apiextensionsv1.NamespaceScoped, gen: gen,
				counts: declaredCounts(v.Schema)})
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("properties: %s holds no CRD of the Kinds %v", dir, kinds)
	}
	return out, nil
}

func (r *operatorRun) ensureNamespace(ns string) {
	if err := createNamespace(r.ctx, r.user, ns); err != nil {
		r.fail("%v", err)
	}
	r.sync()
}

// createNamespace creates namespace ns with c, unless it exists.
func createNamespace(ctx context.Context, c client.Client, ns string) error {
	u := &unstructured.Unstructured{}
	u.SetAPIVersion("v1")
	u.SetKind("Namespace")
	u.SetName(ns)
	if err := c.Create(ctx, u); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("create namespace %s: %w", ns, err)
	}
	return nil
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
		if f := r.hostFailures(); len(f) > 0 {
			r.fail("%s", f[0])
		}
		if errs := r.host.Errors(); len(errs) > 0 {
			r.fail("operator harness: %v", errs)
		}
		r.noteDeletes()
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
	r.observe()
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
