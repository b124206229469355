package properties

import (
	"fmt"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/cli-utils/pkg/kstatus/status"
)

// readyConditions are the condition types that claim a custom resource
// works: Ready (kstatus, Flux, Argo CD read it) and Available (the
// Deployment's own, which operators copy).
var readyConditions = []string{"Ready", "Available"}

// child is an object a custom resource controls, with kstatus's verdict.
type child struct {
	obj   *unstructured.Unstructured
	owner types.UID
	res   *status.Result
}

// statusStep is the status-honesty oracle after a step. Convention: a
// resource is Ready (or Available) once what it controls has reached
// kstatus's Current, the state `kubectl wait`, Flux and Argo CD wait for;
// like a Deployment's Available through a rollout, it may stay so while a
// child that once was Current rolls forward. So a custom resource that
// says Ready=True while a child it controls (controller ownerReference)
// has never been Current lies to every tool that waits on it, as an
// operator that sets Ready from its spec does.
//
// Exemptions, each a status that legitimately lags: a child its own
// controller has not yet answered (status.observedGeneration below
// metadata.generation, or no status at all) is judged once it has; a
// claim the operator made before the child appeared (it has not written
// the custom resource since: a reconcile that crashed or is parked
// between the child's creation and its status write) is judged only at
// convergence. So is a claim whose child's spec changed after it (another
// writer scaled it before its controller answered the claimed spec: what
// the claim said was not yet wrong). The teeth test of all three is
// TestStatusHonestyCatchesReadyFromSpec: the claim is made in the
// reconcile that creates the child, which no exemption excuses.
func (r *operatorRun) statusStep() {
	r.rt.Helper()
	var lying []child
	for _, c := range r.children() {
		uid := c.obj.GetUID()
		if _, ok := r.seen.firstSeen[uid]; !ok {
			r.seen.firstSeen[uid] = len(r.events)
		}
		if g := c.obj.GetGeneration(); g != r.seen.generation[uid] {
			r.seen.generation[uid], r.seen.generationAt[uid] = g, len(r.events)
		}
		switch {
		case c.res.Status == status.CurrentStatus:
			r.seen.everCurrent[uid] = true
		case !r.seen.everCurrent[uid] && answered(c.obj):
			lying = append(lying, c)
		}
	}
	if len(lying) == 0 {
		return
	}
	claims := r.claims()
	for _, c := range lying {
		cl, ok := claims[c.owner]
		uid := c.obj.GetUID()
		if !ok || r.seen.lastWrite[cl.writeKey] < r.seen.firstSeen[uid] || r.seen.generationAt[uid] > r.seen.lastWrite[cl.writeKey] {
			continue
		}
		r.fail("status honesty: %s says %s=True, but %s, which it controls, has never been Current (kstatus: %s: %s); the operator wrote the %s at step %d, after the %s appeared at step %d (convention: Ready is earned once what a resource controls is Current, as kubectl wait, Flux and Argo CD read it; Operator.Skip[%q] turns this off)",
			cl.name, cl.cond, describe(c.obj), c.res.Status, c.res.Message, cl.kind, r.seen.lastWrite[cl.writeKey],
			strings.ToLower(c.obj.GetKind()), r.seen.firstSeen[c.obj.GetUID()], oracleStatusHonesty)
	}
}

// statusAtConvergence is the same oracle once the run has converged,
// without the exemptions: nothing lags any more, so every child of a
// custom resource that says Ready=True is Current.
func (r *operatorRun) statusAtConvergence() {
	r.rt.Helper()
	if r.skipped(oracleStatusHonesty) {
		return
	}
	claims := r.claims()
	for _, c := range r.children() {
		if cl, ok := claims[c.owner]; ok && c.res.Status != status.CurrentStatus {
			r.fail("status honesty: at convergence %s says %s=True, but %s, which it controls, is not Current (kstatus: %s: %s) (convention: Ready is earned once what a resource controls is Current, as kubectl wait, Flux and Argo CD read it; Operator.Skip[%q] turns this off)",
				cl.name, cl.cond, describe(c.obj), c.res.Status, c.res.Message, oracleStatusHonesty)
		}
	}
}

// children lists the objects of the kinds the operator watches or wrote
// that a custom resource controls, with kstatus's verdict on each.
func (r *operatorRun) children() []child {
	r.rt.Helper()
	var out []child
	for _, gvk := range r.host.Kinds() {
		items := r.listKind(gvk)
		for i := range items {
			o := &items[i]
			ref := metav1.GetControllerOfNoCopy(o)
			if ref == nil {
				continue
			}
			if gv, err := schema.ParseGroupVersion(ref.APIVersion); err != nil || !r.isCustom(gv.WithKind(ref.Kind)) {
				continue
			}
			res, err := status.Compute(o)
			if err != nil {
				r.fail("status honesty: kstatus of %s: %v", describe(o), err)
			}
			out = append(out, child{obj: o, owner: ref.UID, res: res})
		}
	}
	return out
}

// claim is a custom resource that says it works.
type claim struct {
	name, kind, cond string
	writeKey         string // its key in observer.lastWrite
}

// claims are the custom resources whose Ready or Available condition is
// True, by uid.
func (r *operatorRun) claims() map[types.UID]claim {
	r.rt.Helper()
	out := map[types.UID]claim{}
	for _, k := range r.kinds {
		for _, o := range r.listKind(k.gvk) {
			conds, _, _ := unstructured.NestedSlice(o.Object, "status", "conditions")
			for _, c := range conds {
				m, _ := c.(map[string]any)
				if typ, _ := m["type"].(string); slices.Contains(readyConditions, typ) && m["status"] == string(metav1.ConditionTrue) {
					name := k.resource + "/" + traceName(o.GetNamespace(), o.GetName())
					out[o.GetUID()] = claim{name: name, kind: k.gvk.Kind, cond: typ, writeKey: name}
					break
				}
			}
		}
	}
	return out
}

// answered says whether an object's own controller has answered its
// latest spec: a status.observedGeneration equal to its generation, or,
// for a kind that reports none, a status at all.
func answered(o *unstructured.Unstructured) bool {
	if g, ok, _ := unstructured.NestedInt64(o.Object, "status", "observedGeneration"); ok {
		return g == o.GetGeneration()
	}
	st, _, _ := unstructured.NestedMap(o.Object, "status")
	return len(st) > 0
}

// describe names an object as a user would: "deployment default/a".
func describe(o *unstructured.Unstructured) string {
	if o.GetNamespace() == "" {
		return fmt.Sprintf("%s %s", strings.ToLower(o.GetKind()), o.GetName())
	}
	return fmt.Sprintf("%s %s/%s", strings.ToLower(o.GetKind()), o.GetNamespace(), o.GetName())
}
