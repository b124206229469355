package properties

import (
	"encoding/json"
	"fmt"
	"reflect"
	goruntime "runtime"
	"slices"
	"sort"
	"strings"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/model"
	"github.com/converge-dev/converge/traces"
)

// differential is Acto's and Sieve's oracle on every interleaving: the end
// state must equal the end state of a fault-free, sequential run of the
// same inputs, in order, each settled before the next (the history, see
// oracle_history.go). States are compared over the kinds the operator
// watches or wrote, masked of what differs between any two runs (uids,
// server-generated names, revisions, timestamps, generations, allocated
// IPs and ports). The failure's first line names the first difference.
func (r *operatorRun) differential() {
	r.rt.Helper()
	ops := r.hist.replay()
	kinds := r.host.Kinds()
	cur, written := r.stateNamed(kinds)
	got, want := withoutStuckStatus(cur, r.referenceState(ops, kinds), r.s.FailingImages(), r.stuckStatefulSets()...) // operator_stuck.go
	got, want = r.withoutDefaulted(got), r.withoutDefaulted(want)
	got, want = r.withoutRefused(got), r.withoutRefused(want) // operator_refused.go
	got = r.withoutPartial(got, want, written)                // oracle_partial.go
	if stateDiff(got, want) == "" {
		return
	}
	// Before blaming the operator, learn what differs between two
	// fault-free runs of the same inputs, as Sieve does: a random
	// password, a value derived from a uid. Those fields are compared no
	// further.
	key := referenceKey(ops, kinds) + r.worldKey() + "\x00again"
	again, ok := r.shared.reference(key)
	if !ok {
		again = r.runReference(r.rt, ops, kinds)
		r.shared.keepReference(key, again)
	}
	_, again = withoutStuckStatus(nil, again, r.s.FailingImages(), r.stuckStatefulSets()...)
	again = r.withoutRefused(r.withoutDefaulted(again))
	got, want = withoutVarying(got, want, again)
	if diff := stateDiff(got, want); diff != "" {
		r.fail("differential: %s\nthe end state differs from a fault-free sequential run of the same inputs (- this run, + the reference; fields that differ between two reference runs are left out):\n%s", firstDifference(got, want), diff)
	}
}

// withoutVarying is got and want with what differs between want and
// again, two runs of the same inputs, set to "<varies>"; an object only
// one of the two has is left out.
func withoutVarying(got, want, again map[string]map[string]any) (map[string]map[string]any, map[string]map[string]any) {
	g, w := map[string]map[string]any{}, map[string]map[string]any{}
	for k, o := range got {
		g[k] = deepCopyJSON(o)
	}
	for k, o := range want {
		w[k] = deepCopyJSON(o)
	}
	for k := range w {
		if _, ok := again[k]; !ok {
			delete(g, k)
			delete(w, k)
		}
	}
	for k, a := range again {
		if _, ok := w[k]; !ok {
			delete(g, k)
			continue
		}
		var paths [][]string
		varying(nil, w[k], a, &paths)
		for _, p := range paths {
			setVarying(g[k], p)
			setVarying(w[k], p)
		}
	}
	return g, w
}

// varying collects the paths where a and b differ: the deepest map keys,
// or a whole list.
func varying(path []string, a, b any, out *[][]string) {
	am, aok := a.(map[string]any)
	bm, bok := b.(map[string]any)
	if aok && bok {
		for k, av := range am {
			varying(append(slices.Clone(path), k), av, bm[k], out)
		}
		for k, bv := range bm {
			if _, ok := am[k]; !ok {
				varying(append(slices.Clone(path), k), nil, bv, out)
			}
		}
		return
	}
	if !reflect.DeepEqual(a, b) {
		*out = append(*out, path)
	}
}

// setVarying sets the value at path in m to "<varies>", making the maps
// on the way: a field one reference run has and the other lacks varies
// too.
func setVarying(m map[string]any, path []string) {
	for i, k := range path {
		if m == nil {
			return
		}
		if i == len(path)-1 {
			m[k] = "<varies>"
			return
		}
		next, ok := m[k].(map[string]any)
		if !ok && m[k] == nil {
			next = map[string]any{}
			m[k] = next
		}
		m = next
	}
}

// referenceState is the masked end state of the fault-free sequential run of
// ops. A run is deterministic, so it is kept for the next check with
// the same inputs: shrinking replays many.
func (r *operatorRun) referenceState(ops []historyInput, kinds []schema.GroupVersionKind) map[string]map[string]any {
	key := referenceKey(ops, kinds) + r.worldKey()
	if want, ok := r.shared.reference(key); ok {
		return want
	}
	if a := r.ahead; a != nil && a.key == key {
		<-a.done
		if a.failure != "" {
			r.rt.Fatal(a.failure) // the reference run's own account, steps and trace
		}
		r.shared.keepReference(key, a.want)
		return a.want
	}
	want := r.runReference(r.rt, ops, kinds)
	r.shared.keepReference(key, want)
	return want
}

func referenceKey(ops []historyInput, kinds []schema.GroupVersionKind) string {
	return compactJSON(ops) + compactJSON(kinds)
}

// startReference starts the reference run on a goroutine of its own as
// the faults end, while this run quiesces: the inputs are all drawn by
// then, and the two runs share the machine's cores. If the kinds to
// compare change in the quiesce (the operator writes a new one), the
// differential runs the reference itself.
func (r *operatorRun) startReference() {
	if r.reference {
		return
	}
	ops, kinds := r.hist.replay(), r.host.Kinds()
	key := referenceKey(ops, kinds) + r.worldKey()
	if _, ok := r.shared.reference(key); ok {
		return
	}
	a := &referenceAhead{key: key, done: make(chan struct{})}
	r.ahead = a
	go func() {
		defer close(a.done)
		f := &referenceFailure{}
		defer func() { a.failure = f.msg }() // also when Fatal ended the goroutine
		a.want = r.runReference(f, ops, kinds)
	}()
}

// referenceAhead is a reference run under way: its end state, or the
// failure that ended it, once done is closed.
type referenceAhead struct {
	key     string
	done    chan struct{}
	want    map[string]map[string]any
	failure string
}

// referenceFailure is a reference run's fataler on its own goroutine: it
// keeps the failure and ends the goroutine, as rapid.T.Fatal ends a check.
type referenceFailure struct{ msg string }

func (f *referenceFailure) Helper() {}

func (f *referenceFailure) Fatal(args ...any) {
	f.msg = fmt.Sprint(args...)
	goruntime.Goexit()
}

func (f *referenceFailure) Fatalf(format string, args ...any) {
	f.msg = fmt.Sprintf(format, args...)
	goruntime.Goexit()
}

// runReference is the fault-free sequential run of ops, to the masked
// state of kinds; its failures go to rt.
func (r *operatorRun) runReference(rt fataler, ops []historyInput, kinds []schema.GroupVersionKind) map[string]map[string]any {
	ref := newOperatorRun(rt, r.t, r.op, r.shared)
	defer ref.close()
	r.sameWorld(ref)
	ref.faults = false
	ref.reference = true
	for _, in := range ops {
		if in.Body != nil {
			ref.noteUserValues(in.Body["spec"])
		}
		ref.replayInput(in)
	}
	ref.quiesce()
	r.shared.keepDeletes(referenceKey(ops, kinds)+r.worldKey(), ref.deleteCounts()) // oracle_destructive.go
	return ref.state(kinds)
}

// operatorShared is what the checks of one property share: the reference
// runs' end states, by their inputs, and the operator's CRDs, read once.
type operatorShared struct {
	mu   sync.Mutex
	refs map[string]map[string]map[string]any
	dels map[string]map[string]int // the reference runs' deletes, by their inputs (oracle_destructive.go)
	crds func() ([]*api.CustomResourceDefinition, error)
	// ended, if set, hears how each check ended (determinism).
	ended func(events []traces.TraceEvent, drawn int, failed bool)
}

// maxReferences bounds the kept reference states.
const maxReferences = 512

func (s *operatorShared) reference(key string) (map[string]map[string]any, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	want, ok := s.refs[key]
	return want, ok
}

func (s *operatorShared) keepReference(key string, want map[string]map[string]any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.refs == nil || len(s.refs) >= maxReferences {
		s.refs = map[string]map[string]map[string]any{}
	}
	s.refs[key] = want
}

func (r *operatorRun) list(gvk schema.GroupVersionKind) []unstructured.Unstructured {
	l := &unstructured.UnstructuredList{}
	l.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
	if err := r.user.List(r.ctx, l); err != nil && !apierrors.IsNotFound(err) {
		r.fail("list %s: %v", gvk.Kind, err)
	}
	return l.Items
}

// state is every object of kinds, masked, by kind and masked name.
func (r *operatorRun) state(kinds []schema.GroupVersionKind) map[string]map[string]any {
	out, _ := r.stateNamed(kinds)
	return out
}

// normalized is obj as the operator's own type holds it, when the scheme
// has the type: a field the type omits when empty is absent either way,
// whoever wrote the object last (a user's "" or the operator's round trip).
func (r *operatorRun) normalized(gvk schema.GroupVersionKind, obj map[string]any) map[string]any {
	typed, err := r.op.Scheme.New(gvk)
	if err != nil {
		return obj
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj, typed); err != nil {
		return obj
	}
	out, err := runtime.DefaultUnstructuredConverter.ToUnstructured(typed)
	if err != nil {
		return obj
	}
	return out
}

// maskedName is the name, or the prefix and a star for a name the server
// generated.
func maskedName(o *unstructured.Unstructured) string {
	if g := o.GetGenerateName(); g != "" && strings.HasPrefix(o.GetName(), g) {
		return g + "*"
	}
	return o.GetName()
}

// operatorMasks are the paths that differ between any two runs, whatever the
// operator does. A "*" steps into every element of a list.
var operatorMasks = [][]string{
	{"metadata", "uid"}, {"metadata", "resourceVersion"}, {"metadata", "generation"},
	{"metadata", "creationTimestamp"}, {"metadata", "managedFields"}, {"metadata", "name"},
	{"metadata", "ownerReferences", "*", "uid"},
	{"metadata", "annotations", "deployment.kubernetes.io/revision"},
	{"metadata", "labels", "converge.dev/drift"}, // another writer's label, which an operator may keep
	// Another field manager's fields (operator_drift_others.go), which an
	// operator may keep: whether they outlive an owner deleted and made
	// again depends on whether the collector got there first.
	{"metadata", "labels", otherLabel}, {"metadata", "annotations", otherLabel},
	{"metadata", "annotations", restartedAt}, {"spec", "template", "metadata", "annotations", restartedAt},
	// A StatefulSet's revision is a hash of its pod template, which is
	// compared, masked as above: the hash would carry the masked fields
	// (TestStatefulSetRevisionMaskKeepsTheTemplateCompared).
	{"status", "currentRevision"}, {"status", "updateRevision"},
	{"metadata", "labels", "controller-revision-hash"},
	{"status", "observedGeneration"},
	{"status", "conditions", "*", "lastTransitionTime"}, {"status", "conditions", "*", "lastUpdateTime"},
	{"status", "conditions", "*", "observedGeneration"},
	{"spec", "clusterIP"}, {"spec", "clusterIPs"},
	// Pull policies and node ports are left out only where the apiserver
	// may have chosen them (operator_defaulted.go).
}

func maskObject(obj map[string]any) map[string]any {
	m := deepCopyJSON(obj)
	for _, p := range operatorMasks {
		drop(m, p)
	}
	maskTimes(m)
	maskOtherWriter(m)
	if meta, ok := m["metadata"].(map[string]any); ok {
		for _, k := range []string{"labels", "annotations"} {
			if l, ok := meta[k].(map[string]any); ok && len(l) == 0 {
				delete(meta, k) // a masked label was the only one
			}
		}
	}
	return m
}

// maskTimes replaces every timestamp with a placeholder: an operator's
// own clock (time.Now in its status, say) is the wall clock, which no two
// runs share.
func maskTimes(v any) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if isTime(e) {
				x[k] = "<time>"
			} else {
				maskTimes(e)
			}
		}
	case []any:
		for i, e := range x {
			if isTime(e) {
				x[i] = "<time>"
			} else {
				maskTimes(e)
			}
		}
	}
}

func isTime(v any) bool {
	s, ok := v.(string)
	return ok && model.IsTimestamp(s)
}

func deepCopyJSON(v map[string]any) map[string]any {
	data, _ := json.Marshal(v)
	var out map[string]any
	_ = json.Unmarshal(data, &out)
	return out
}

func drop(v any, path []string) {
	switch x := v.(type) {
	case map[string]any:
		if len(path) == 1 {
			delete(x, path[0])
			return
		}
		drop(x[path[0]], path[1:])
	case []any:
		if path[0] == "*" {
			for _, e := range x {
				drop(e, path[1:])
			}
		}
	}
}

// stateDiff lists the objects only one side has, and the fields that
// differ in the others.
func stateDiff(got, want map[string]map[string]any) string {
	keys := map[string]bool{}
	for k := range got {
		keys[k] = true
	}
	for k := range want {
		keys[k] = true
	}
	sorted := make([]string, 0, len(keys))
	for k := range keys {
		sorted = append(sorted, k)
	}
	sort.Strings(sorted)
	var b strings.Builder
	for _, k := range sorted {
		g, gok := got[k]
		w, wok := want[k]
		switch {
		case !wok:
			fmt.Fprintf(&b, "- %s (only in this run)\n", k)
		case !gok:
			fmt.Fprintf(&b, "+ %s (only in the reference)\n", k)
		default:
			var lines []string
			fieldDiff("", g, w, &lines)
			for _, l := range lines {
				fmt.Fprintf(&b, "  %s: %s\n", k, l)
			}
		}
	}
	return b.String()
}

func fieldDiff(path string, got, want any, out *[]string) {
	gm, gok := got.(map[string]any)
	wm, wok := want.(map[string]any)
	if gok && wok {
		var keys []string
		for k := range gm {
			keys = append(keys, k)
		}
		for k := range wm {
			if _, ok := gm[k]; !ok {
				keys = append(keys, k)
			}
		}
		slices.Sort(keys)
		for _, k := range keys {
			fieldDiff(path+"."+k, gm[k], wm[k], out)
		}
		return
	}
	if !reflect.DeepEqual(got, want) {
		*out = append(*out, fmt.Sprintf("%s: - %s + %s", strings.TrimPrefix(path, "."), compactJSON(got), compactJSON(want)))
	}
}

// firstDifference names the first difference stateDiff lists, for the
// failure's first line: "Deployment default/b only in this run",
// "ConfigMap default/a-config data.x differs".
func firstDifference(got, want map[string]map[string]any) string {
	keys := make([]string, 0, len(got)+len(want))
	for k := range got {
		keys = append(keys, k)
	}
	for k := range want {
		if _, ok := got[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		g, gok := got[k]
		w, wok := want[k]
		switch {
		case !wok:
			return k + " only in this run"
		case !gok:
			return k + " only in the reference"
		}
		var lines []string
		fieldDiff("", g, w, &lines)
		if len(lines) > 0 {
			path, _, _ := strings.Cut(lines[0], ": - ")
			return fmt.Sprintf("%s %s differs", k, path)
		}
	}
	return "the end states differ"
}
