// Package controller holds the fleet operator's reconcilers: FleetReconciler
// keeps a Fleet's Ships, ShipReconciler makes Ships ready. Setup registers
// both with a manager, as a cmd/main.go would.
package controller

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	fleetv1 "github.com/converge-dev/converge/properties/testdata/fleet/api/v1"
)

// FleetReconciler reconciles a Fleet: it owns the Ships "<fleet>-<i>",
// i in [0, spec.ships).
//
// Ship names cannot collide across Fleets: i is a single digit (ships is
// at most 4), so "<a>-<i>" = "<b>-<j>" only if a = b. A Fleet whose name
// is too long for the suffix is accepted, and its reconciles fail with the
// apiserver's 422, as in most operators.
type FleetReconciler struct {
	client.Client
	Scheme *runtime.Scheme
}

// +kubebuilder:rbac:groups=fleet.example.com,resources=fleets,verbs=get;list;watch
// +kubebuilder:rbac:groups=fleet.example.com,resources=fleets/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=fleet.example.com,resources=ships,verbs=get;list;watch;create;update;patch;delete

// Reconcile moves the Fleet's Ships towards its spec and reports how many
// have caught up in its status.
func (r *FleetReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var fleet fleetv1.Fleet
	if err := r.Get(ctx, req.NamespacedName, &fleet); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !fleet.DeletionTimestamp.IsZero() {
		// The garbage collector deletes the Ships (controller references);
		// recreating them would fight a foreground deletion.
		return ctrl.Result{}, nil
	}

	for i := range fleet.Spec.Ships {
		if err := r.ensureShip(ctx, &fleet, i); err != nil {
			return ctrl.Result{}, fmt.Errorf("ship %s: %w", shipName(&fleet, i), err)
		}
	}

	// Controlled by UID, not by name or spec.fleet: a Ship of an earlier
	// Fleet of the same name, or one someone else made, is not ours.
	var ships fleetv1.ShipList
	if err := r.List(ctx, &ships, client.InNamespace(fleet.Namespace)); err != nil {
		return ctrl.Result{}, err
	}
	var ready int32
	for i := range ships.Items {
		ship := &ships.Items[i]
		if owner := metav1.GetControllerOf(ship); owner == nil || owner.UID != fleet.UID {
			continue
		}
		if idx, ok := shipIndex(&fleet, ship.Name); !ok || idx >= fleet.Spec.Ships {
			if err := r.deleteShip(ctx, ship); err != nil {
				return ctrl.Result{}, fmt.Errorf("ship %s: %w", ship.Name, err)
			}
			continue
		}
		if ship.Status.Ready && ship.Status.ObservedSpeed == fleet.Spec.Speed {
			ready++
		}
	}

	status := fleetv1.FleetStatus{ReadyShips: ready, ObservedGeneration: fleet.Generation}
	if fleet.Status == status {
		return ctrl.Result{}, nil // a resync writes nothing
	}
	fleet.Status = status
	return ctrl.Result{}, r.Status().Update(ctx, &fleet)
}

// ensureShip creates or repairs Ship i. The mutation sets only the fields
// the Fleet owns, so a Ship already in step is not written, and labels,
// annotations or owner references others added stay.
func (r *FleetReconciler) ensureShip(ctx context.Context, fleet *fleetv1.Fleet, i int32) error {
	ship := &fleetv1.Ship{ObjectMeta: metav1.ObjectMeta{Name: shipName(fleet, i), Namespace: fleet.Namespace}}
	_, err := controllerutil.CreateOrUpdate(ctx, r.Client, ship, func() error {
		ship.Spec.Fleet = fleet.Name
		ship.Spec.Speed = fleet.Spec.Speed
		return controllerutil.SetControllerReference(fleet, ship, r.Scheme)
	})
	return err
}

// deleteShip deletes a Ship the Fleet no longer wants. The UID
// precondition keeps a stale cache from deleting a newer Ship of the same
// name; one already going, or gone, needs nothing more.
func (r *FleetReconciler) deleteShip(ctx context.Context, ship *fleetv1.Ship) error {
	if !ship.DeletionTimestamp.IsZero() {
		return nil
	}
	uid := ship.UID
	return client.IgnoreNotFound(r.Delete(ctx, ship, client.Preconditions{UID: &uid}))
}

func shipName(fleet *fleetv1.Fleet, i int32) string {
	return fleet.Name + "-" + strconv.Itoa(int(i))
}

// shipIndex parses i out of "<fleet>-<i>". Only the canonical decimal
// form counts, so "<fleet>-01" is not Ship 1 (it is deleted if the Fleet
// controls it).
func shipIndex(fleet *fleetv1.Fleet, name string) (int32, bool) {
	suffix, ok := strings.CutPrefix(name, fleet.Name+"-")
	if !ok {
		return 0, false
	}
	i, err := strconv.ParseInt(suffix, 10, 32)
	if err != nil || i < 0 || strconv.FormatInt(i, 10) != suffix {
		return 0, false
	}
	return int32(i), true
}

// SetupWithManager sets up the controller with the Manager: Fleets, and
// the Ships they control (a Ship's events requeue its Fleet, so status
// follows the Ships and a deleted Ship is recreated).
func (r *FleetReconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).
		For(&fleetv1.Fleet{}).
		Owns(&fleetv1.Ship{}).
		Named("fleet").
		Complete(r)
}

// Setup registers both reconcilers with mgr, as a cmd/main.go would. The
// manager's scheme must hold fleetv1 (fleetv1.AddToScheme).
func Setup(mgr ctrl.Manager) error {
	if err := (&FleetReconciler{Client: mgr.GetClient(), Scheme: mgr.GetScheme()}).SetupWithManager(mgr); err != nil {
		return fmt.Errorf("fleet controller: %w", err)
	}
	if err := (&ShipReconciler{Client: mgr.GetClient()}).SetupWithManager(mgr); err != nil {
		return fmt.Errorf("ship controller: %w", err)
	}
	return nil
}
