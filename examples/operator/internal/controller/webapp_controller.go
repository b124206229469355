package controller

import (
	"context"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	webappv1 "github.com/converge-dev/converge/examples/operator/api/v1"
)

const (
	// Finalizer keeps a WebApp until its ConfigMap is deleted.
	Finalizer = "webapp.example.com/cleanup"
	// InstanceLabel selects a WebApp's pods (Deployment selector, pod
	// template, Service selector).
	InstanceLabel = "app.kubernetes.io/instance"
	// ConditionAvailable is True when every desired replica is ready.
	ConditionAvailable = "Available"

	containerName = "web"
	messageKey    = "message"
)

// Bug selects a seeded bug. Leave it empty; the bugs are for converge's
// mutant tests, which prove that its oracles catch each one. Each is a
// realistic bug of the classes Sieve and Acto found in real operators.
type Bug string

const (
	// BugStaleDelete trusts a possibly stale cache: a Deployment whose
	// cached replicas differ from spec.replicas is deleted (to be
	// recreated) instead of updated.
	BugStaleDelete Bug = "stale-delete"
	// BugNoOwnerReference creates the Service without a controller
	// reference: it is neither watched nor garbage collected.
	BugNoOwnerReference Bug = "no-owner-reference"
	// BugFinalizerStuck removes the finalizer only when the ConfigMap Get
	// finds it: once the ConfigMap is gone (deleted by someone else, or by
	// a pass that crashed before removing the finalizer) it never is.
	BugFinalizerStuck Bug = "finalizer-stuck"
	// BugStatusBeforeChildren reports Available with readyReplicas =
	// spec.replicas before the children exist, and returns after that
	// status write.
	BugStatusBeforeChildren Bug = "status-before-children"
	// BugNonIdempotentCreate creates the ConfigMap with generateName by a
	// plain Create: every pass (a retry after a crash, a resync) creates
	// another one.
	BugNonIdempotentCreate Bug = "non-idempotent-create"
	// BugDriftIgnored only creates a missing Deployment: one whose
	// replicas or image drifted (or whose WebApp changed) is never
	// repaired.
	BugDriftIgnored Bug = "drift-ignored"
	// BugClobber updates the Deployment with an object built from scratch
	// (with the cached resourceVersion), every pass: labels, annotations
	// and fields others wrote are clobbered.
	BugClobber Bug = "clobber"
	// BugNoRequeueOnError logs and swallows the errors of ensuring the
	// children, so a failed write is never retried.
	BugNoRequeueOnError Bug = "no-requeue-on-error"
)

// Bugs lists every seeded bug.
var Bugs = []Bug{BugStaleDelete, BugNoOwnerReference, BugFinalizerStuck, BugStatusBeforeChildren,
	BugNonIdempotentCreate, BugDriftIgnored, BugClobber, BugNoRequeueOnError}

// WebAppReconciler reconciles a WebApp object: it owns a ConfigMap
// "<name>-config", a Deployment "<name>" and a Service "<name>".
type WebAppReconciler struct {
	client.Client
	Scheme *runtime.Scheme
	// Bug seeds a bug: leave empty; for converge's mutant tests.
	Bug Bug
}

// +kubebuilder:rbac:groups=webapp.example.com,resources=webapps,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=webapp.example.com,resources=webapps/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=webapp.example.com,resources=webapps/finalizers,verbs=update
// +kubebuilder:rbac:groups=apps,resources=deployments,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups="",resources=services;configmaps,verbs=get;list;watch;create;update;patch;delete

// Reconcile moves the WebApp's children towards its spec and reports
// their state in its status.
func (r *WebAppReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	log := logf.FromContext(ctx)

	var app webappv1.WebApp
	if err := r.Get(ctx, req.NamespacedName, &app); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}

	if !app.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, r.finalize(ctx, &app)
	}
	if controllerutil.AddFinalizer(&app, Finalizer) {
		if err := r.Update(ctx, &app); err != nil {
			return ctrl.Result{}, err
		}
	}

	if r.Bug == BugStatusBeforeChildren {
		// The bug: readiness claimed from the spec, not observed.
		before := app.Status.DeepCopy()
		setStatus(&app, app.Spec.Replicas)
		if !equality.Semantic.DeepEqual(before, &app.Status) {
			return ctrl.Result{}, r.Status().Update(ctx, &app)
		}
	}

	dep, err := r.ensureChildren(ctx, &app)
	if err != nil {
		if r.Bug == BugNoRequeueOnError {
			log.Error(err, "ensuring the WebApp's children") // the bug: not returned, so not retried
			return ctrl.Result{}, nil
		}
		return ctrl.Result{}, err
	}
	if dep == nil {
		// The Deployment was deleted (BugStaleDelete); its event brings
		// the WebApp back.
		return ctrl.Result{}, nil
	}

	before := app.Status.DeepCopy()
	setStatus(&app, dep.Status.ReadyReplicas)
	if equality.Semantic.DeepEqual(before, &app.Status) {
		return ctrl.Result{}, nil // a resync writes nothing
	}
	return ctrl.Result{}, r.Status().Update(ctx, &app)
}

// finalize deletes the WebApp's ConfigMap and removes the finalizer once
// the ConfigMap is gone. The Deployment and the Service are left to the
// garbage collector (their controller references).
func (r *WebAppReconciler) finalize(ctx context.Context, app *webappv1.WebApp) error {
	if !controllerutil.ContainsFinalizer(app, Finalizer) {
		return nil
	}
	var cm corev1.ConfigMap
	err := r.Get(ctx, types.NamespacedName{Namespace: app.Namespace, Name: configMapName(app)}, &cm)
	switch {
	case err == nil:
		if cm.DeletionTimestamp.IsZero() {
			if err := r.Delete(ctx, &cm, client.Preconditions{UID: &cm.UID}); client.IgnoreNotFound(err) != nil {
				return err
			}
		}
		if r.Bug == BugFinalizerStuck {
			// The bug: the finalizer goes only on the pass that saw the
			// ConfigMap.
			controllerutil.RemoveFinalizer(app, Finalizer)
			return r.Update(ctx, app)
		}
		// The ConfigMap's delete event (Owns) brings the WebApp back;
		// the finalizer goes once a Get says NotFound.
		return nil
	case apierrors.IsNotFound(err):
		if r.Bug == BugFinalizerStuck {
			return nil
		}
		controllerutil.RemoveFinalizer(app, Finalizer)
		return r.Update(ctx, app)
	default:
		return err
	}
}

// ensureChildren creates or repairs the ConfigMap, the Deployment and the
// Service, in that order (the pods read the ConfigMap). It returns the
// Deployment as last read or written, nil if it was deleted.
func (r *WebAppReconciler) ensureChildren(ctx context.Context, app *webappv1.WebApp) (*appsv1.Deployment, error) {
	if err := r.ensureConfigMap(ctx, app); err != nil {
		return nil, fmt.Errorf("configmap: %w", err)
	}
	dep, err := r.ensureDeployment(ctx, app)
	if err != nil {
		return nil, fmt.Errorf("deployment: %w", err)
	}
	if err := r.ensureService(ctx, app); err != nil {
		return nil, fmt.Errorf("service: %w", err)
	}
	return dep, nil
}

func (r *WebAppReconciler) ensureConfigMap(ctx context.Context, app *webappv1.WebApp) error {
	if r.Bug == BugNonIdempotentCreate {
		// The bug: a generated name, so nothing tells a retry that the
		// ConfigMap exists.
		cm := &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{GenerateName: configMapName(app) + "-", Namespace: app.Namespace},
			Data:       map[string]string{messageKey: app.Spec.Message},
		}
		if err := controllerutil.SetControllerReference(app, cm, r.Scheme); err != nil {
			return err
		}
		return r.Create(ctx, cm)
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: configMapName(app), Namespace: app.Namespace}}
	_, err := controllerutil.CreateOrUpdate(ctx, r.Client, cm, func() error {
		if cm.Data == nil {
			cm.Data = map[string]string{}
		}
		cm.Data[messageKey] = app.Spec.Message
		return controllerutil.SetControllerReference(app, cm, r.Scheme)
	})
	return err
}

func (r *WebAppReconciler) ensureDeployment(ctx context.Context, app *webappv1.WebApp) (*appsv1.Deployment, error) {
	dep := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: app.Name, Namespace: app.Namespace}}
	mutate := func() error { return r.mutateDeployment(app, dep) }
	switch r.Bug {
	case BugStaleDelete:
		if err := r.Get(ctx, client.ObjectKeyFromObject(dep), dep); err == nil {
			if dep.Spec.Replicas != nil && *dep.Spec.Replicas != app.Spec.Replicas {
				// The bug: the cache may be stale, and a delete is not a
				// repair; the pods go with it.
				return nil, client.IgnoreNotFound(r.Delete(ctx, dep))
			}
		} else if !apierrors.IsNotFound(err) {
			return nil, err
		}
		dep = &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: app.Name, Namespace: app.Namespace}}
	case BugDriftIgnored:
		// The bug: create if missing, never compare.
		if err := r.Get(ctx, client.ObjectKeyFromObject(dep), dep); !apierrors.IsNotFound(err) {
			return dep, err
		}
		if err := mutate(); err != nil {
			return nil, err
		}
		return dep, r.Create(ctx, dep)
	case BugClobber:
		var cached appsv1.Deployment
		if err := r.Get(ctx, client.ObjectKeyFromObject(dep), &cached); apierrors.IsNotFound(err) {
			if err := mutate(); err != nil {
				return nil, err
			}
			return dep, r.Create(ctx, dep)
		} else if err != nil {
			return nil, err
		}
		// The bug: a whole object from scratch over whatever is there.
		if err := mutate(); err != nil {
			return nil, err
		}
		dep.ResourceVersion = cached.ResourceVersion
		return dep, r.Update(ctx, dep)
	}
	_, err := controllerutil.CreateOrUpdate(ctx, r.Client, dep, mutate)
	return dep, err
}

// mutateDeployment sets only the fields the WebApp owns, in place, so
// that the server's defaults (strategy, protocol, pull policy, ...) stay
// and a second pass finds nothing to write.
func (r *WebAppReconciler) mutateDeployment(app *webappv1.WebApp, dep *appsv1.Deployment) error {
	replicas := app.Spec.Replicas // not a pointer into the WebApp
	dep.Spec.Replicas = &replicas
	if dep.Spec.Selector == nil { // immutable once created
		dep.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{InstanceLabel: app.Name}}
	}
	if dep.Spec.Template.Labels == nil {
		dep.Spec.Template.Labels = map[string]string{}
	}
	dep.Spec.Template.Labels[InstanceLabel] = app.Name

	pod := &dep.Spec.Template.Spec
	i := containerIndex(pod.Containers, containerName)
	if i < 0 {
		pod.Containers = append(pod.Containers, corev1.Container{Name: containerName})
		i = len(pod.Containers) - 1
	}
	c := &pod.Containers[i]
	c.Image = app.Spec.Image
	if len(c.Ports) != 1 {
		c.Ports = []corev1.ContainerPort{{}}
	}
	c.Ports[0].Name = "http"
	c.Ports[0].ContainerPort = app.Spec.Port
	j := envIndex(c.Env, "MESSAGE")
	if j < 0 {
		c.Env = append(c.Env, corev1.EnvVar{Name: "MESSAGE"})
		j = len(c.Env) - 1
	}
	env := &c.Env[j]
	env.Value = ""
	if env.ValueFrom == nil {
		env.ValueFrom = &corev1.EnvVarSource{}
	}
	if env.ValueFrom.ConfigMapKeyRef == nil {
		env.ValueFrom.ConfigMapKeyRef = &corev1.ConfigMapKeySelector{}
	}
	env.ValueFrom.ConfigMapKeyRef.Name = configMapName(app)
	env.ValueFrom.ConfigMapKeyRef.Key = messageKey
	return controllerutil.SetControllerReference(app, dep, r.Scheme)
}

func (r *WebAppReconciler) ensureService(ctx context.Context, app *webappv1.WebApp) error {
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: app.Name, Namespace: app.Namespace}}
	_, err := controllerutil.CreateOrUpdate(ctx, r.Client, svc, func() error {
		// Only the selector and the port: clusterIP, type, protocol and
		// the rest are the server's.
		svc.Spec.Selector = map[string]string{InstanceLabel: app.Name}
		if len(svc.Spec.Ports) != 1 {
			svc.Spec.Ports = []corev1.ServicePort{{}}
		}
		svc.Spec.Ports[0].Name = "http"
		svc.Spec.Ports[0].Port = app.Spec.Port
		svc.Spec.Ports[0].TargetPort = intstr.FromInt32(app.Spec.Port)
		if r.Bug == BugNoOwnerReference {
			return nil // the bug: no controller reference
		}
		return controllerutil.SetControllerReference(app, svc, r.Scheme)
	})
	return err
}

// setStatus sets observedGeneration, readyReplicas and the Available
// condition from ready pods; meta.SetStatusCondition keeps the transition
// time when the condition's status does not change.
func setStatus(app *webappv1.WebApp, ready int32) {
	app.Status.ObservedGeneration = app.Generation
	app.Status.ReadyReplicas = ready
	cond := metav1.Condition{
		Type:               ConditionAvailable,
		Status:             metav1.ConditionFalse,
		Reason:             "Progressing",
		Message:            fmt.Sprintf("%d of %d replicas ready", ready, app.Spec.Replicas),
		ObservedGeneration: app.Generation,
	}
	if ready == app.Spec.Replicas {
		cond.Status, cond.Reason = metav1.ConditionTrue, "MinimumReplicasAvailable"
	}
	meta.SetStatusCondition(&app.Status.Conditions, cond)
}

func configMapName(app *webappv1.WebApp) string { return app.Name + "-config" }

func containerIndex(cs []corev1.Container, name string) int {
	for i := range cs {
		if cs[i].Name == name {
			return i
		}
	}
	return -1
}

func envIndex(env []corev1.EnvVar, name string) int {
	for i := range env {
		if env[i].Name == name {
			return i
		}
	}
	return -1
}

// SetupWithManager sets up the controller with the Manager: WebApps, and
// the children they control (their events requeue the owner).
func (r *WebAppReconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).
		For(&webappv1.WebApp{}).
		Owns(&appsv1.Deployment{}).
		Owns(&corev1.Service{}).
		Owns(&corev1.ConfigMap{}).
		Named("webapp").
		Complete(r)
}
