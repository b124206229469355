// Package tenant is an operator written from outside (see examples/foreign): a cluster-scoped Tenant gets a
// namespace tenant-<name> holding a ServiceAccount, an info ConfigMap and a
// token Secret; deleting the Tenant tears the namespace down behind a
// finalizer.
package tenant

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	tenantv1 "github.com/converge-dev/converge/examples/foreign/tenant/api/v1"
)

const (
	Finalizer      = "tenancy.probe.example.com/teardown"
	ManagedByLabel = "app.kubernetes.io/managed-by"
	managedBy      = "tenant-operator"
)

var (
	// BugDeleteNotFound seeds a bug: the teardown deletes the namespace
	// without ignoring NotFound, so once it is gone the finalizer stays.
	BugDeleteNotFound = false
	// RandomToken makes the token Secret's value random, created once (as
	// operators that mint passwords do); false makes it derived from the UID.
	RandomToken = true
)

type Reconciler struct {
	client.Client
	APIReader client.Reader
	Scheme    *runtime.Scheme
}

func nsName(t *tenantv1.Tenant) string { return "tenant-" + t.Name }

func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var t tenantv1.Tenant
	if err := r.Get(ctx, req.NamespacedName, &t); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !t.DeletionTimestamp.IsZero() {
		return r.teardown(ctx, &t)
	}
	if controllerutil.AddFinalizer(&t, Finalizer) {
		if err := r.Update(ctx, &t); err != nil {
			return ctrl.Result{}, err
		}
	}

	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: nsName(&t)}}
	if _, err := controllerutil.CreateOrUpdate(ctx, r.Client, ns, func() error {
		if ns.Labels == nil {
			ns.Labels = map[string]string{}
		}
		ns.Labels[ManagedByLabel] = managedBy
		ns.Labels["tenancy.probe.example.com/tier"] = t.Spec.Tier
		return controllerutil.SetControllerReference(&t, ns, r.Scheme)
	}); err != nil {
		return ctrl.Result{}, fmt.Errorf("namespace: %w", err)
	}
	if !ns.DeletionTimestamp.IsZero() {
		// Someone deleted it: wait for it to go, then make it again.
		return ctrl.Result{RequeueAfter: 5 * time.Second}, nil
	}

	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "tenant-admin", Namespace: ns.Name}}
	if _, err := controllerutil.CreateOrUpdate(ctx, r.Client, sa, func() error {
		return controllerutil.SetControllerReference(&t, sa, r.Scheme)
	}); err != nil {
		return ctrl.Result{}, fmt.Errorf("serviceaccount: %w", err)
	}

	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "tenant-info", Namespace: ns.Name}}
	if _, err := controllerutil.CreateOrUpdate(ctx, r.Client, cm, func() error {
		if cm.Labels == nil {
			cm.Labels = map[string]string{}
		}
		cm.Labels[ManagedByLabel] = managedBy
		cm.Data = map[string]string{"owner": t.Spec.Owner, "tier": t.Spec.Tier, "maxApps": fmt.Sprint(t.Spec.MaxApps)}
		return controllerutil.SetControllerReference(&t, cm, r.Scheme)
	}); err != nil {
		return ctrl.Result{}, fmt.Errorf("configmap: %w", err)
	}

	sec := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "tenant-token", Namespace: ns.Name}}
	if _, err := controllerutil.CreateOrUpdate(ctx, r.Client, sec, func() error {
		if len(sec.Data["token"]) == 0 { // minted once, never rotated
			tok := string(t.UID)
			if RandomToken {
				b := make([]byte, 16)
				_, _ = rand.Read(b)
				tok = hex.EncodeToString(b)
			}
			sec.Data = map[string][]byte{"token": []byte(tok)}
		}
		return controllerutil.SetControllerReference(&t, sec, r.Scheme)
	}); err != nil {
		return ctrl.Result{}, fmt.Errorf("secret: %w", err)
	}

	if t.Status.Namespace == ns.Name && t.Status.Phase == "Active" {
		return ctrl.Result{}, nil
	}
	t.Status.Namespace, t.Status.Phase = ns.Name, "Active"
	return ctrl.Result{}, r.Status().Update(ctx, &t)
}

func (r *Reconciler) teardown(ctx context.Context, t *tenantv1.Tenant) (ctrl.Result, error) {
	if !controllerutil.ContainsFinalizer(t, Finalizer) {
		return ctrl.Result{}, nil
	}
	if err := r.DeleteAllOf(ctx, &corev1.ConfigMap{}, client.InNamespace(nsName(t)),
		client.MatchingLabels{ManagedByLabel: managedBy}); err != nil && !apierrors.IsNotFound(err) {
		return ctrl.Result{}, err
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: nsName(t)}}
	err := r.Delete(ctx, ns)
	if BugDeleteNotFound {
		if err != nil {
			return ctrl.Result{}, err
		}
	} else if client.IgnoreNotFound(err) != nil {
		return ctrl.Result{}, err
	}
	// The cache may lag: ask the apiserver whether the namespace is gone.
	if err := r.APIReader.Get(ctx, client.ObjectKeyFromObject(ns), ns); err == nil {
		return ctrl.Result{RequeueAfter: 2 * time.Second}, nil
	} else if !apierrors.IsNotFound(err) {
		return ctrl.Result{}, err
	}
	controllerutil.RemoveFinalizer(t, Finalizer)
	return ctrl.Result{}, r.Update(ctx, t)
}

func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).
		For(&tenantv1.Tenant{}).
		Owns(&corev1.Namespace{}).
		Owns(&corev1.ServiceAccount{}).
		Owns(&corev1.ConfigMap{}).
		Owns(&corev1.Secret{}).
		Named("tenant").
		Complete(r)
}
