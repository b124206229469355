package properties

import (
	"strconv"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/converge-dev/converge/model"
)

// observer follows a run as the API shows it, once per store revision,
// for the oracles that need history the end state has lost: which
// children have ever been Current, when the operator last wrote each
// custom resource, when a ConfigMap's data changed and when a container
// started. It looks after every step that wrote something, so no state
// between two steps escapes it.
type observer struct {
	rev     int64 // store revision of the last look
	scanned int   // events whose operator writes are counted in lastWrite
	// everCurrent holds the children (objects a custom resource controls)
	// kstatus has called Current at least once; firstSeen, the step each
	// child was first seen at.
	everCurrent map[types.UID]bool
	firstSeen   map[types.UID]int
	// generation and generationAt are each child's last seen
	// metadata.generation and the step it was first seen at.
	generation   map[types.UID]int64
	generationAt map[types.UID]int
	// lastWrite is the step of the operator's last write to an object, by
	// resource and the name the trace gives it.
	lastWrite map[string]int
	config    configHistory
}

func newObserver() *observer {
	return &observer{everCurrent: map[types.UID]bool{}, firstSeen: map[types.UID]int{}, lastWrite: map[string]int{},
		generation: map[types.UID]int64{}, generationAt: map[types.UID]int{},
		config: configHistory{byName: map[string]dataSeen{}, started: map[containerKey]startSeen{}}}
}

// observe is called after every step: when the store moved, the oracles
// that follow the run look again.
func (r *operatorRun) observe() {
	r.rt.Helper()
	if r.reference || r.host == nil {
		return // the reference run is the harness's own; it is not judged
	}
	rev, err := r.st.Rev(r.ctx)
	if err != nil {
		r.fail("observe: %v", err)
	}
	if rev == r.seen.rev {
		return
	}
	r.seen.rev = rev
	for ; r.seen.scanned < len(r.events); r.seen.scanned++ {
		e := r.events[r.seen.scanned]
		if e.Actor != "operator" {
			continue
		}
		for _, w := range e.Writes {
			if w.Verb != "DELETE" {
				r.seen.lastWrite[w.Resource+"/"+w.Name] = e.Seq
			}
		}
	}
	if !r.skipped(oracleStatusHonesty) {
		r.statusStep()
	}
	if !r.skipped(oracleConfigReachesPods) {
		r.configStep()
	}
}

// listKind lists every object of gvk through the API.
func (r *operatorRun) listKind(gvk schema.GroupVersionKind) []unstructured.Unstructured {
	r.rt.Helper()
	l := &unstructured.UnstructuredList{}
	l.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
	if err := r.user.List(r.ctx, l); err != nil {
		r.fail("list %s: %v", gvk.Kind, err)
	}
	for i := range l.Items {
		l.Items[i].SetGroupVersionKind(gvk)
	}
	return l.Items
}

// traceName is an object's name as the trace's writes give it: the name
// alone in the default namespace, else namespace/name.
func traceName(ns, name string) string {
	if ns == "" || ns == model.DefaultNamespace {
		return name
	}
	return ns + "/" + name
}

// revOf is an object's resourceVersion as a store revision.
func revOf(o client.Object) int64 {
	n, _ := strconv.ParseInt(o.GetResourceVersion(), 10, 64)
	return n
}
