package properties

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"pgregory.net/rapid"

	"github.com/converge-dev/converge/impl/operator"
)

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
		r.driftNoted(rt)
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
	r.beginReconcile(it)
	r.beginLost(it)
	out, err := r.host.Reconcile(it, f)
	r.endReconcile(it, out)
	r.checkLost(it, !out.Parked)
	fault := ""
	if f.FailRequest > 0 {
		fault = fmt.Sprintf("its request %d fails with a 500", f.FailRequest)
	}
	fault = joinNotes(fault, r.refusedNote(it, out))
	switch {
	case f.CrashAfter >= 0 && out.Crashed:
		r.record("operator", "reconcile", it.String(), crashed(out), out.Writes)
	case out.Parked:
		r.record("operator", "reconcile", it.String(), joinNotes(fault, "parked before its next write"), out.Writes)
	case f.CrashAfter >= 0:
		r.record("operator", "reconcile", it.String(), joinNotes(fmt.Sprintf("finished before its crash point %d", f.CrashAfter), r.refusedNote(it, out)), out.Writes)
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
	r.endReconcile(it, out)
	r.checkLost(it, !out.Parked)
	switch {
	case out.Crashed:
		r.record("operator", "continue", it.String(), crashed(out), out.Writes)
	case out.Parked:
		r.record("operator", "continue", it.String(), "parked before its next write", out.Writes)
	default:
		r.record("operator", "continue", it.String(), joinNotes("done", r.refusedNote(it, out)), out.Writes)
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
	if r.worldFault(rt) {
		return
	}
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
