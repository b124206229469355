package properties

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/converge-dev/converge/impl/operator"
	"github.com/converge-dev/converge/model"
)

// destructiveHistory is Sieve's history oracle for destructive operations
// ("unexpected deletion"): it compares, per object, the operator's deletes
// in this run with those of the fault-free sequential run of the same
// inputs (the differential's reference), where the end-state comparison
// sees nothing: a child deleted and made again converges.
//
// Convention: an ownerReference's uid names the owner incarnation a
// dependent belongs to, as the garbage collector reads it. A delete is
// counted against the operator when the deleted object's controller owner,
// of a kind the operator watches, was alive under that uid and not being
// deleted, and the operator's view did not hold that owner: it held a
// previous incarnation of the name (same name, another uid; Sieve's
// stale-incarnation delete, pravega/zookeeper-operator#312,
// datastax/cass-operator#412, rabbitmq/cluster-operator#648) or none at
// all. Deletes by users, by another writer's drift and by the garbage
// collector are not the operator's requests and are never counted; nor a
// delete of a child of an owner gone or being deleted, nor one made from a
// view of the child's own owner, however stale its spec there (the
// operator followed what that owner last told it, as the churn oracle
// has it). Such a delete fails only if the reference deletes that object
// fewer times. Operator.Skip["destructive-history"] turns it off.
func (r *operatorRun) destructiveHistory() {
	r.rt.Helper()
	if r.reference || r.skipped(oracleDestructive) {
		return
	}
	var stale []stepDelete
	for _, d := range r.deletes {
		if d.fromStaleView() {
			stale = append(stale, d)
		}
	}
	if len(stale) == 0 {
		return
	}
	ops, kinds := r.hist.replay(), r.host.Kinds()
	key := referenceKey(ops, kinds) + r.worldKey()
	r.referenceState(ops, kinds) // runs the reference, or reuses it
	ref, ok := r.shared.deletesOf(key)
	if !ok { // its end state was kept, its deletes no longer
		r.runReference(r.rt, ops, kinds)
		ref, _ = r.shared.deletesOf(key)
	}
	seen := map[string]int{}
	for _, d := range stale {
		k := d.object()
		if seen[k]++; seen[k] <= ref[k] {
			continue
		}
		r.fail("destructive history: at step %d the operator (reconcile %s) deleted %s (uid %s), a child of %s %s of uid %s, alive and not being deleted, while its view held %s; the fault-free sequential run of the same inputs deletes it %d times, this run at least %d (Sieve's unexpected-deletion check: ownerReference uids name the owner's incarnation)%s",
			d.step, d.Item, k, d.UID, d.OwnerKind, model.Key(d.Namespace, d.OwnerName), d.OwnerUID, d.view(), ref[k], seen[k], r.madeAgain(d))
	}
}

// stepDelete is one delete of the operator, at the step that made it.
type stepDelete struct {
	operator.Deleted
	step int
}

// noteDeletes takes the operator's deletes of the step just taken.
func (r *operatorRun) noteDeletes() {
	for _, d := range r.host.Deletes() {
		r.deletes = append(r.deletes, stepDelete{Deleted: d, step: len(r.events)})
	}
}

// fromStaleView: the owner was alive and not being deleted, and the
// operator's view held another incarnation of it, or none.
func (d stepDelete) fromStaleView() bool {
	return d.Watched && d.OwnerAlive && !(d.Viewed && d.ViewUID == d.OwnerUID)
}

func (d stepDelete) object() string { return d.Resource + " " + model.Key(d.Namespace, d.Name) }

// view names what the operator's view held of the owner.
func (d stepDelete) view() string {
	if !d.Viewed {
		return fmt.Sprintf("no %s of that name (its informer had %d undelivered events)", d.OwnerKind, d.Pending)
	}
	deleting := ""
	if d.ViewDeleting {
		deleting = ", being deleted"
	}
	return fmt.Sprintf("%s %s of uid %s at resourceVersion %s%s, a previous incarnation (its informer had %d undelivered events)",
		d.OwnerKind, model.Key(d.Namespace, d.OwnerName), d.ViewUID, d.ViewRev, deleting, d.Pending)
}

// madeAgain names the object's incarnation now, if the operator made it
// again: the end state, which the differential compares, shows nothing.
func (r *operatorRun) madeAgain(d stepDelete) string {
	for _, gvk := range r.host.Kinds() {
		if r.resourceOf(gvk) != d.Resource {
			continue
		}
		o := &unstructured.Unstructured{}
		o.SetGroupVersionKind(gvk)
		if err := r.user.Get(r.ctx, client.ObjectKey{Namespace: d.Namespace, Name: d.Name}, o); err == nil && string(o.GetUID()) != d.UID {
			return fmt.Sprintf("; it was made again as uid %s, so the end state converged", o.GetUID())
		}
	}
	return ""
}

// deleteCounts is how often the operator deleted each object in this
// run, whatever its view.
func (r *operatorRun) deleteCounts() map[string]int {
	r.noteDeletes()
	out := map[string]int{}
	for _, d := range r.deletes {
		out[d.object()]++
	}
	return out
}

// keepDeletes keeps a reference run's deletes, the most of two runs of
// the same inputs (the differential runs the reference again to learn
// what varies).
func (s *operatorShared) keepDeletes(key string, counts map[string]int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dels == nil || len(s.dels) >= maxReferences {
		s.dels = map[string]map[string]int{}
	}
	kept := s.dels[key]
	if kept == nil {
		kept = map[string]int{}
		s.dels[key] = kept
	}
	for k, n := range counts {
		kept[k] = max(kept[k], n)
	}
}

func (s *operatorShared) deletesOf(key string) (map[string]int, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	kept, ok := s.dels[key]
	return kept, ok
}
