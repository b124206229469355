package controller

import (
	"context"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	fleetv1 "github.com/converge-dev/converge/properties/testdata/fleet/api/v1"
)

// ShipReconciler reconciles a Ship. It stands in for whatever would make
// a real Ship ready: it reports every Ship ready at its spec.speed.
type ShipReconciler struct {
	client.Client
}

// +kubebuilder:rbac:groups=fleet.example.com,resources=ships,verbs=get;list;watch
// +kubebuilder:rbac:groups=fleet.example.com,resources=ships/status,verbs=get;update;patch

// Reconcile marks the Ship ready at its current speed.
func (r *ShipReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var ship fleetv1.Ship
	if err := r.Get(ctx, req.NamespacedName, &ship); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	status := fleetv1.ShipStatus{Ready: true, ObservedSpeed: ship.Spec.Speed}
	if ship.Status == status {
		return ctrl.Result{}, nil // a resync writes nothing
	}
	ship.Status = status
	return ctrl.Result{}, r.Status().Update(ctx, &ship)
}

// SetupWithManager sets up the controller with the Manager.
func (r *ShipReconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).
		For(&fleetv1.Ship{}).
		Named("ship").
		Complete(r)
}
