package properties

import (
	"fmt"
	"slices"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// driftMark is another writer's last change of an object: its update
// (and the revision it left) or its delete.
type driftMark struct {
	gvk      schema.GroupVersionKind
	resource string
	key      client.ObjectKey
	step     int
	rev      int64 // the revision the update left; 0 for a delete
	what     string
}

// markDrift notes a drift write that landed on o (deleted: a delete).
func (r *operatorRun) markDrift(o *unstructured.Unstructured, deleted bool, what string) {
	m := driftMark{gvk: o.GroupVersionKind(), resource: r.resourceOf(o.GroupVersionKind()), key: client.ObjectKeyFromObject(o),
		step: len(r.events), what: what}
	if !deleted {
		m.rev = revOf(o)
	}
	r.drifted[m.resource+"/"+traceName(m.key.Namespace, m.key.Name)] = m
}

// standing is the drift marks whose change is still what the store
// holds: no one wrote the object since (or recreated it, after a delete).
func (r *operatorRun) standing() map[string]driftMark {
	r.rt.Helper()
	out := map[string]driftMark{}
	for k, m := range r.drifted {
		cur := &unstructured.Unstructured{}
		cur.SetGroupVersionKind(m.gvk)
		err := r.user.Get(r.ctx, m.key, cur)
		switch {
		case apierrors.IsNotFound(err):
			if m.rev == 0 {
				out[k] = m
			}
		case err != nil:
			r.fail("events alone: get %s %s: %v", m.resource, m.key, err)
		case m.rev != 0 && revOf(cur) == m.rev:
			out[k] = m
		}
	}
	return out
}

// fixedPoint resyncs the operator at the end, as a SyncPeriod does, and
// fails on any write it makes: a correct controller at a fixed point has
// nothing to write. A write that repairs another writer's change, which
// the operator left standing until the resync, is the events-alone
// oracle's: convention, a controller reacts to what it controls through
// its watches (Owns, Watches), since controller-runtime's default
// SyncPeriod is 10 hours; an operator that repairs a drift only on a
// resync leaves it in a cluster that long. standing is the drift left
// before the resync.
func (r *operatorRun) fixedPoint(standing map[string]driftMark) {
	r.rt.Helper()
	before, from := r.host.Writes(), len(r.events)
	detail := "every object, to check the fixed point"
	if len(standing) > 0 {
		detail += "; another writer's change still stands on " + standingKeys(standing)
	}
	r.record("oracle", "resync", "", detail, nil)
	r.host.Resync()
	r.drain()
	n := r.host.Writes() - before
	if n == 0 {
		return
	}
	if !r.skipped(oracleEventsAlone) {
		for _, e := range r.events[from:] {
			for _, w := range e.Writes {
				if m, ok := standing[w.Resource+"/"+w.Name]; ok && e.Actor == "operator" {
					r.fail("events alone: a missing watch: the operator repaired %s (%s %s at step %d) only on a resync, at step %d: no event it watches brought it back (convention: a controller hears of what it controls through its watches, Owns or Watches; controller-runtime's default SyncPeriod is 10 hours, so in a cluster the drift stays that long; Operator.Skip[%q] turns this off)",
						describeMark(m), "another writer's", m.what, m.step, e.Seq, oracleEventsAlone)
				}
			}
		}
	}
	r.fail("fixed point: after the run quiesced, a resync made %d writes", n)
}

func describeMark(m driftMark) string {
	return fmt.Sprintf("%s %s", strings.ToLower(m.gvk.Kind), m.key)
}

// standingKeys is the standing marks' keys, sorted, for the trace.
func standingKeys(s map[string]driftMark) string {
	keys := make([]string, 0, len(s))
	for k := range s {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return strings.Join(keys, ", ")
}
