package kubebuilder

// guestbookTypes replaces the scaffold's api/v1/guestbook_types.go: a
// Guestbook names an image and a replica count.
const guestbookTypes = `package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// GuestbookSpec is the guestbook's image and size.
type GuestbookSpec struct {
	// image is the guestbook's container image.
	// +required
	Image string ` + "`json:\"image\"`" + `

	// replicas is how many pods serve the guestbook.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=5
	// +optional
	Replicas *int32 ` + "`json:\"replicas,omitempty\"`" + `
}

// GuestbookStatus is what the controller last saw of its Deployment.
type GuestbookStatus struct {
	// +optional
	ReadyReplicas int32 ` + "`json:\"readyReplicas,omitempty\"`" + `
}

// +kubebuilder:object:root=true
// +kubebuilder:subresource:status

// Guestbook is the Schema for the guestbooks API
type Guestbook struct {
	metav1.TypeMeta   ` + "`json:\",inline\"`" + `
	metav1.ObjectMeta ` + "`json:\"metadata,omitzero\"`" + `

	// +required
	Spec GuestbookSpec ` + "`json:\"spec\"`" + `
	// +optional
	Status GuestbookStatus ` + "`json:\"status,omitzero\"`" + `
}

// +kubebuilder:object:root=true

// GuestbookList contains a list of Guestbook
type GuestbookList struct {
	metav1.TypeMeta ` + "`json:\",inline\"`" + `
	metav1.ListMeta ` + "`json:\"metadata,omitzero\"`" + `
	Items           []Guestbook ` + "`json:\"items\"`" + `
}

func init() {
	SchemeBuilder.Register(func(s *runtime.Scheme) error {
		s.AddKnownTypes(SchemeGroupVersion, &Guestbook{}, &GuestbookList{})
		return nil
	})
}
`

// guestbookController replaces the scaffold's reconciler: a Guestbook
// owns a Deployment of its image and replicas, and its status counts
// the Deployment's ready replicas.
const guestbookController = `package controller

import (
	"context"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	webappv1 "example.com/guestbook/api/v1"
)

// GuestbookReconciler reconciles a Guestbook object
type GuestbookReconciler struct {
	client.Client
	Scheme *runtime.Scheme
}

// +kubebuilder:rbac:groups=webapp.example.com,resources=guestbooks,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=webapp.example.com,resources=guestbooks/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=apps,resources=deployments,verbs=get;list;watch;create;update;patch;delete

func (r *GuestbookReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var gb webappv1.Guestbook
	if err := r.Get(ctx, req.NamespacedName, &gb); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !gb.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, nil
	}
	dep := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: gb.Name, Namespace: gb.Namespace}}
	_, err := controllerutil.CreateOrUpdate(ctx, r.Client, dep, func() error {
		labels := map[string]string{"app.kubernetes.io/name": "guestbook", "app.kubernetes.io/instance": gb.Name}
		replicas := int32(1)
		if gb.Spec.Replicas != nil {
			replicas = *gb.Spec.Replicas
		}
		dep.Spec.Replicas = &replicas
		dep.Spec.Selector = &metav1.LabelSelector{MatchLabels: labels}
		dep.Spec.Template.Labels = labels
		if len(dep.Spec.Template.Spec.Containers) != 1 {
			dep.Spec.Template.Spec.Containers = []corev1.Container{{Name: "guestbook"}}
		}
		dep.Spec.Template.Spec.Containers[0].Image = gb.Spec.Image
		return controllerutil.SetControllerReference(&gb, dep, r.Scheme)
	})
	if err != nil {
		if apierrors.IsConflict(err) || apierrors.IsAlreadyExists(err) {
			return ctrl.Result{Requeue: true}, nil
		}
		return ctrl.Result{}, err
	}
	if gb.Status.ReadyReplicas != dep.Status.ReadyReplicas {
		gb.Status.ReadyReplicas = dep.Status.ReadyReplicas
		if err := r.Status().Update(ctx, &gb); err != nil {
			if apierrors.IsConflict(err) || apierrors.IsNotFound(err) {
				return ctrl.Result{Requeue: true}, nil
			}
			return ctrl.Result{}, err
		}
	}
	return ctrl.Result{}, nil
}

// SetupWithManager sets up the controller with the Manager.
func (r *GuestbookReconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).
		For(&webappv1.Guestbook{}).
		Owns(&appsv1.Deployment{}).
		Named("guestbook").
		Complete(r)
}
`
