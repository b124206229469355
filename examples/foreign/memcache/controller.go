// Package memcache is an operator written from outside (see examples/foreign): a Memcache runs as a StatefulSet
// behind a headless Service, with its own ServiceAccount.
package memcache

import (
	"context"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/record"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	cachev1 "github.com/converge-dev/converge/examples/foreign/memcache/api/v1"
)

// BugDriftIgnored seeds a bug: the StatefulSet's spec is only written when
// it is created, so a later spec change (or another writer's edit) is
// never repaired.
var BugDriftIgnored = false

type Reconciler struct {
	client.Client
	Scheme   *runtime.Scheme
	Recorder record.EventRecorder
}

func labelsFor(m *cachev1.Memcache) map[string]string {
	return map[string]string{"app.kubernetes.io/name": "memcached", "app.kubernetes.io/instance": m.Name}
}

func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var m cachev1.Memcache
	if err := r.Get(ctx, req.NamespacedName, &m); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !m.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, nil
	}

	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: m.Name + "-memcached", Namespace: m.Namespace}}
	if _, err := controllerutil.CreateOrPatch(ctx, r.Client, sa, func() error {
		return controllerutil.SetControllerReference(&m, sa, r.Scheme)
	}); err != nil {
		return ctrl.Result{}, fmt.Errorf("serviceaccount: %w", err)
	}

	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: m.Name, Namespace: m.Namespace}}
	if _, err := controllerutil.CreateOrPatch(ctx, r.Client, svc, func() error {
		svc.Spec.ClusterIP = corev1.ClusterIPNone
		svc.Spec.Selector = labelsFor(&m)
		if len(svc.Spec.Ports) != 1 {
			svc.Spec.Ports = []corev1.ServicePort{{}}
		}
		svc.Spec.Ports[0].Name = "memcache"
		svc.Spec.Ports[0].Port = 11211
		return controllerutil.SetControllerReference(&m, svc, r.Scheme)
	}); err != nil {
		return ctrl.Result{}, fmt.Errorf("service: %w", err)
	}

	sts := &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Name: m.Name, Namespace: m.Namespace}}
	op, err := controllerutil.CreateOrPatch(ctx, r.Client, sts, func() error {
		if BugDriftIgnored && !sts.CreationTimestamp.IsZero() {
			return nil
		}
		replicas := m.Spec.Replicas
		sts.Spec.Replicas = &replicas
		sts.Spec.ServiceName = svc.Name
		if sts.Spec.Selector == nil {
			sts.Spec.Selector = &metav1.LabelSelector{MatchLabels: labelsFor(&m)}
		}
		sts.Spec.Template.Labels = labelsFor(&m)
		sts.Spec.Template.Spec.ServiceAccountName = sa.Name
		if len(sts.Spec.Template.Spec.Containers) != 1 {
			sts.Spec.Template.Spec.Containers = []corev1.Container{{Name: "memcached"}}
		}
		c := &sts.Spec.Template.Spec.Containers[0]
		c.Image = "memcached:" + m.Spec.Version
		c.Args = []string{"-m", fmt.Sprint(m.Spec.MemoryMB)}
		if len(c.Ports) != 1 {
			c.Ports = []corev1.ContainerPort{{}}
		}
		c.Ports[0].Name = "memcache"
		c.Ports[0].ContainerPort = 11211
		return controllerutil.SetControllerReference(&m, sts, r.Scheme)
	})
	if err != nil {
		return ctrl.Result{}, fmt.Errorf("statefulset: %w", err)
	}
	if op == controllerutil.OperationResultCreated {
		r.Recorder.Eventf(&m, corev1.EventTypeNormal, "Created", "created StatefulSet %s", sts.Name)
	}

	before := m.DeepCopy()
	m.Status.Replicas = sts.Status.Replicas
	m.Status.ReadyReplicas = sts.Status.ReadyReplicas
	m.Status.Selector = labels.SelectorFromSet(labelsFor(&m)).String()
	m.Status.ObservedGeneration = m.Generation
	cond := metav1.Condition{Type: "Available", Status: metav1.ConditionFalse, Reason: "Progressing",
		Message: fmt.Sprintf("%d/%d ready", sts.Status.ReadyReplicas, m.Spec.Replicas), ObservedGeneration: m.Generation}
	if sts.Status.ReadyReplicas == m.Spec.Replicas {
		cond.Status, cond.Reason = metav1.ConditionTrue, "AllReady"
	}
	meta.SetStatusCondition(&m.Status.Conditions, cond)
	if equality.Semantic.DeepEqual(before.Status, m.Status) {
		return ctrl.Result{}, nil
	}
	return ctrl.Result{}, r.Status().Patch(ctx, &m, client.MergeFrom(before))
}

func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).
		For(&cachev1.Memcache{}, builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		Owns(&appsv1.StatefulSet{}).
		Owns(&corev1.Service{}).
		Owns(&corev1.ServiceAccount{}).
		Named("memcache").
		Complete(r)
}
