package properties_test

import (
	"context"
	"strconv"
	"testing"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/converge-dev/converge/properties"
	fleetv1 "github.com/converge-dev/converge/properties/testdata/fleet/api/v1"
)

// TestCheckOperatorOwnsStoredOnlyKinds: an operator that owns the kinds
// operators keep beside their workloads (a CronJob, a
// HorizontalPodAutoscaler, an Ingress, a NetworkPolicy, a
// PodDisruptionBudget, a Role and its RoleBinding) watches them all
// (Owns), repairs what drift changes, and
// leaves their deletion to the collector. It is correct and passes: the
// kinds are served, watched by the stepped caches, drawn by drift, and
// collected once their Fleet is gone.
func TestCheckOperatorOwnsStoredOnlyKinds(t *testing.T) {
	properties.CheckOperator(t, properties.Operator{
		CRDs:   "testdata/fleet/config/crd/bases",
		Scheme: fleetScheme(),
		Kinds:  []string{"fleets"},
		Setup: func(mgr ctrl.Manager) error {
			return ctrl.NewControllerManagedBy(mgr).For(&fleetv1.Fleet{}).
				Owns(&batchv1.CronJob{}).Owns(&autoscalingv2.HorizontalPodAutoscaler{}).Owns(&networkingv1.Ingress{}).Owns(&networkingv1.NetworkPolicy{}).
				Owns(&policyv1.PodDisruptionBudget{}).Owns(&rbacv1.Role{}).Owns(&rbacv1.RoleBinding{}).
				Complete(&ownsManyKinds{Client: mgr.GetClient()})
		},
	})
}

type ownsManyKinds struct{ client.Client }

func (r *ownsManyKinds) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	var f fleetv1.Fleet
	if err := r.Get(ctx, req.NamespacedName, &f); err != nil || !f.DeletionTimestamp.IsZero() {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	labels := map[string]string{"fleet": f.Name}
	meta := func(suffix string) metav1.ObjectMeta {
		return metav1.ObjectMeta{Name: f.Name + suffix, Namespace: f.Namespace}
	}
	cj := &batchv1.CronJob{ObjectMeta: meta("-report")}
	hpa := &autoscalingv2.HorizontalPodAutoscaler{ObjectMeta: meta("")}
	ing := &networkingv1.Ingress{ObjectMeta: meta("")}
	np := &networkingv1.NetworkPolicy{ObjectMeta: meta("-isolate")}
	pdb := &policyv1.PodDisruptionBudget{ObjectMeta: meta("")}
	role := &rbacv1.Role{ObjectMeta: meta("-reader")}
	rb := &rbacv1.RoleBinding{ObjectMeta: meta("-reader")}
	prefix := networkingv1.PathTypePrefix
	for _, o := range []struct {
		obj    client.Object
		mutate func()
	}{
		{cj, func() {
			cj.Spec.Schedule = "*/" + strconv.Itoa(int(f.Spec.Ships%59)+1) + " * * * *"
			cj.Spec.JobTemplate.Spec.Template.Spec.RestartPolicy = corev1.RestartPolicyOnFailure
			cj.Spec.JobTemplate.Spec.Template.Spec.Containers = []corev1.Container{{Name: "report", Image: "busybox:1.36"}}
		}},
		{hpa, func() {
			hpa.Spec.ScaleTargetRef = autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: f.Name}
			hpa.Spec.MaxReplicas = max(f.Spec.Ships, 1)
		}},
		{ing, func() {
			ing.Spec.Rules = []networkingv1.IngressRule{{Host: f.Name + ".example.com", IngressRuleValue: networkingv1.IngressRuleValue{
				HTTP: &networkingv1.HTTPIngressRuleValue{Paths: []networkingv1.HTTPIngressPath{{Path: "/", PathType: &prefix,
					Backend: networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{Name: f.Name,
						Port: networkingv1.ServiceBackendPort{Number: 80}}}}}}}}}
		}},
		{np, func() { np.Spec.PodSelector = metav1.LabelSelector{MatchLabels: labels} }},
		{pdb, func() {
			pdb.Spec.Selector = &metav1.LabelSelector{MatchLabels: labels}
			pdb.Spec.MaxUnavailable = ptrTo(intstr.FromInt32(1))
		}},
		{role, func() {
			role.Rules = []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"get", "list"}}}
		}},
		{rb, func() {
			rb.RoleRef = rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: role.Name}
			rb.Subjects = []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: "default", Namespace: f.Namespace}}
		}},
	} {
		if _, err := controllerutil.CreateOrUpdate(ctx, r, o.obj, func() error {
			o.mutate()
			return controllerutil.SetControllerReference(&f, o.obj, r.Scheme())
		}); err != nil {
			return requeueOnRace(err)
		}
	}
	return reconcile.Result{}, nil
}

func ptrTo[T any](v T) *T { return &v }
