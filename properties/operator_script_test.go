package properties

import (
	"runtime"
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/converge-dev/converge/impl/operator"
	"github.com/converge-dev/converge/model"
)

// OperatorScript is one CheckOperator run whose steps a test writes out
// instead of drawing them: the same steps, oracles and end, with no seed
// to depend on. Teeth tests use it to reach an exemption's edge every
// time. Objects are in the default namespace.
type OperatorScript struct{ r *operatorRun }

// RunOperatorScript runs op through steps, then the end of a run
// (recovery, quiesce, the end-of-run oracles), and answers the failure's
// text, or "" if the run passed.
func RunOperatorScript(t *testing.T, op Operator, steps func(*OperatorScript)) string {
	t.Helper()
	f := &referenceFailure{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		r := newOperatorRun(f, t, op, newOperatorShared(op))
		defer r.close()
		steps(&OperatorScript{r: r})
		r.end()
	}()
	<-done
	return f.msg
}

// Set creates the custom resource of resource (a plural) named name with
// spec, or replaces the spec of the one there.
func (s *OperatorScript) Set(resource, name string, spec map[string]any) {
	k := s.kind(resource)
	obj := map[string]any{"apiVersion": k.gvk.GroupVersion().String(), "kind": k.gvk.Kind,
		"metadata": map[string]any{"name": name, "namespace": model.DefaultNamespace}, "spec": spec}
	s.r.noteUserValues(spec)
	s.r.userWrite(customDraw{k: k, ns: model.DefaultNamespace, name: name, obj: obj})
}

// Delete deletes the custom resource.
func (s *OperatorScript) Delete(resource, name string) {
	s.r.userWrite(customDraw{k: s.kind(resource), ns: model.DefaultNamespace, name: name, del: true})
}

// Deliver hands the operator the next event of resource.
func (s *OperatorScript) Deliver(resource string) {
	if !slices.Contains(s.r.host.Deliverable(), resource) {
		s.r.fail("script: no event of %s to deliver", resource)
	}
	s.r.deliver(resource)
}

// Reconcile runs the operator's queued request for name, with faults.
func (s *OperatorScript) Reconcile(name string, f operator.Faults) {
	for _, it := range s.r.host.Ready() {
		if it.Request.Name == name {
			s.r.reconcile(it, f)
			return
		}
	}
	s.r.fail("script: no request for %s is queued: %v", name, s.r.host.Ready())
}

// Settle runs the operator and the control plane until both are idle,
// as the end's quiesce does.
func (s *OperatorScript) Settle() { s.r.quiesce() }

// RestartInThePast restarts the operator against an apiserver lagging
// behind what it saw (Host.RestartInThePast).
func (s *OperatorScript) RestartInThePast() {
	s.r.record("fault", "timetravel", "operator", "the operator restarts against an apiserver lagging behind what it saw (time travel)", nil)
	if err := s.r.host.RestartInThePast(); err != nil {
		s.r.fail("%v", err)
	}
	s.r.sync()
}

// Other is another field manager's change of one kind ("label",
// "annotation", "restart", "sidecar", "scale") on the live object.
func (s *OperatorScript) Other(apiVersion, kind, name, change string) {
	s.r.otherWrite(s.get(apiVersion, kind, name), change)
}

// DriftDelete is another writer deleting the live object.
func (s *OperatorScript) DriftDelete(apiVersion, kind, name string) {
	s.r.driftDelete(s.get(apiVersion, kind, name))
}

func (s *OperatorScript) get(apiVersion, kind, name string) *unstructured.Unstructured {
	o := &unstructured.Unstructured{}
	gvk := schema.FromAPIVersionAndKind(apiVersion, kind)
	o.SetGroupVersionKind(gvk)
	if err := s.r.user.Get(s.r.ctx, client.ObjectKey{Namespace: model.DefaultNamespace, Name: name}, o); err != nil {
		s.r.fail("script: get %s %s: %v", kind, name, err)
	}
	o.SetGroupVersionKind(gvk)
	return o
}

func (s *OperatorScript) kind(resource string) customKind {
	for _, k := range s.r.kinds {
		if k.resource == resource {
			return k
		}
	}
	s.r.fail("script: no custom resource %q", resource)
	runtime.Goexit()
	return customKind{}
}
