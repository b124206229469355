package replicaset

import (
	"context"
	"fmt"
	"sort"
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/converge-dev/converge/model"
	"github.com/converge-dev/converge/properties"
)

// Spec plugs ReplicaSets in place of the built-in replicaset controller.
func Spec() properties.ControllerSpec {
	return properties.ControllerSpec{Name: model.ReplicaSetController, New: New}
}

// New builds the controller over a component's client and caches; the
// harness calls it again after every crash.
func New(env properties.ControllerEnv) properties.Reconciler {
	return &ReplicaSets{
		client:   env.Client,
		sets:     env.Cache(model.KindReplicaSet),
		pods:     env.Cache(model.KindPod),
		expected: map[string]map[string]int64{},
	}
}

// ReplicaSets is the example's replicaset controller.
type ReplicaSets struct {
	client properties.Client
	sets   *properties.Cache
	pods   *properties.Cache
	// expected maps a ReplicaSet (by its namespace/name key: two
	// namespaces may hold one name) to the pods it wrote last and the
	// resourceVersion each write returned.
	expected map[string]map[string]int64
}

var _ properties.Reconciler = (*ReplicaSets)(nil)

// Reconcile brings one ReplicaSet's pods to spec.replicas. An error asks
// for a retry; waiting for expectations does not, because the pod events
// it waits for queue the ReplicaSet again.
func (r *ReplicaSets) Reconcile(ctx context.Context, req properties.Request) (properties.Result, error) {
	obj, ok := r.sets.Get(req.Namespace, req.Name)
	if !ok {
		delete(r.expected, req.Key())
		return properties.Result{}, nil
	}
	rs := obj.(*appsv1.ReplicaSet)
	if rs.DeletionTimestamp != nil {
		return properties.Result{}, nil
	}
	if met, err := r.satisfied(ctx, req); err != nil || !met {
		return properties.Result{}, err
	}
	pods := ActivePods(r.pods, rs)
	want := 0
	if rs.Spec.Replicas != nil {
		want = int(*rs.Spec.Replicas)
	}
	wrote := map[string]int64{}
	r.expected[req.Key()] = wrote
	switch diff := want - len(pods); {
	case diff > 0:
		for range diff {
			p, err := r.client.Create(ctx, PodFor(rs))
			if err != nil {
				return properties.Result{}, err
			}
			wrote[p.GetObjectMeta().GetName()] = RevOf(p)
		}
	case diff < 0:
		for _, p := range DeletionOrder(pods)[:-diff] {
			gone, err := r.client.Delete(ctx, "pods", p.Namespace, p.Name, Precondition(p))
			if err != nil {
				return properties.Result{}, err
			}
			if gone != nil {
				wrote[p.Name] = RevOf(gone)
			}
		}
	default:
		return properties.Result{}, WriteStatus(ctx, r.client, rs, pods)
	}
	return properties.Result{}, nil
}

// satisfied reports whether the pod cache shows every pod of the last
// reconcile's writes at least as new as the write. A pod missing from the
// cache counts once a live read says it is gone for good.
func (r *ReplicaSets) satisfied(ctx context.Context, req properties.Request) (bool, error) {
	for name, rev := range r.expected[req.Key()] {
		if cached, ok := r.pods.Get(req.Namespace, name); ok {
			if RevOf(cached) < rev {
				return false, nil
			}
			continue
		}
		_, err := r.client.Get(ctx, "pods", req.Namespace, name)
		switch {
		case properties.IsNotFound(err):
			continue
		case err != nil:
			return false, err
		}
		return false, nil // created, not seen yet
	}
	return true, nil
}

// ActivePods lists the cached non-terminating pods rs controls.
func ActivePods(pods *properties.Cache, rs *appsv1.ReplicaSet) []*corev1.Pod {
	var out []*corev1.Pod
	for _, o := range pods.List() {
		p := o.(*corev1.Pod)
		if p.DeletionTimestamp == nil && ControlledBy(p.OwnerReferences, string(rs.UID)) {
			out = append(out, p)
		}
	}
	return out
}

// ControlledBy reports whether refs name uid as the controller.
func ControlledBy(refs []metav1.OwnerReference, uid string) bool {
	for _, ref := range refs {
		if ref.Controller != nil && *ref.Controller {
			return string(ref.UID) == uid
		}
	}
	return false
}

// PodFor stamps a pod from rs's template, as the built-in controller does.
func PodFor(rs *appsv1.ReplicaSet) *corev1.Pod {
	t := *rs.Spec.Template.DeepCopy()
	yes := true
	p := &corev1.Pod{
		TypeMeta: metav1.TypeMeta{Kind: "Pod", APIVersion: "v1"},
		ObjectMeta: metav1.ObjectMeta{
			GenerateName: rs.Name + "-",
			Namespace:    rs.Namespace,
			Labels:       t.Labels,
			Annotations:  t.Annotations,
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: rs.Name, UID: rs.UID,
				Controller: &yes, BlockOwnerDeletion: &yes}},
		},
		Spec:   t.Spec,
		Status: corev1.PodStatus{Phase: corev1.PodPending},
	}
	if len(p.Spec.Containers) > 0 {
		c := &p.Spec.Containers[0]
		c.Resources.Requests = c.Resources.Requests.DeepCopy()
		if c.Resources.Requests == nil {
			c.Resources.Requests = corev1.ResourceList{}
		}
		c.Resources.Requests[corev1.ResourceCPU] = *resource.NewMilliQuantity(model.DefaultPodCPU, resource.DecimalSI)
		c.Resources.Requests[corev1.ResourceMemory] = *resource.NewQuantity(model.DefaultPodMemory<<20, resource.BinarySI)
	}
	return p
}

// DeletionOrder ranks pods for scale-down: unscheduled, then not ready,
// then the newest (longest, then greatest) name.
func DeletionOrder(pods []*corev1.Pod) []*corev1.Pod {
	out := append([]*corev1.Pod(nil), pods...)
	rank := func(p *corev1.Pod) int {
		switch {
		case p.Spec.NodeName == "":
			return 0
		case !Ready(p):
			return 1
		}
		return 2
	}
	sort.SliceStable(out, func(i, j int) bool {
		if ri, rj := rank(out[i]), rank(out[j]); ri != rj {
			return ri < rj
		}
		a, b := out[i].Name, out[j].Name
		if len(a) != len(b) {
			return len(a) > len(b)
		}
		return a > b
	})
	return out
}

// Ready reports the pod's Ready condition.
func Ready(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// Precondition deletes obj only in the state it was seen in.
func Precondition(obj properties.Object) metav1.DeleteOptions {
	rv := obj.GetObjectMeta().GetResourceVersion()
	return metav1.DeleteOptions{Preconditions: &metav1.Preconditions{ResourceVersion: &rv}}
}

// WriteStatus records replicas and readyReplicas when they changed.
func WriteStatus(ctx context.Context, c properties.Client, rs *appsv1.ReplicaSet, pods []*corev1.Pod) error {
	ready := 0
	for _, p := range pods {
		if Ready(p) {
			ready++
		}
	}
	if int(rs.Status.Replicas) == len(pods) && int(rs.Status.ReadyReplicas) == ready {
		return nil
	}
	n := rs.DeepCopy()
	n.Status.Replicas, n.Status.ReadyReplicas = int32(len(pods)), int32(ready)
	if _, err := c.UpdateStatus(ctx, n); err != nil {
		return fmt.Errorf("status of replicasets/%s: %w", rs.Name, err)
	}
	return nil
}

// RevOf is an object's resourceVersion as a number (0 if unset).
func RevOf(obj properties.Object) int64 {
	rv, _ := strconv.ParseInt(obj.GetObjectMeta().GetResourceVersion(), 10, 64)
	return rv
}
