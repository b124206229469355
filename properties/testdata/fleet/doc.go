// Package fleet is a second example operator for converge, of a different
// shape from examples/operator: a custom resource that owns other custom
// resources, laid out as kubebuilder lays projects out:
//
//	api/v1/                 the Fleet and Ship kinds (fleet.example.com/v1) and their deep copies
//	config/crd/bases/       their CustomResourceDefinitions, as controller-gen writes them
//	controller/             FleetReconciler, ShipReconciler and Setup
//
// A Fleet wants spec.ships Ships named "<fleet>-<i>" (i in [0, ships)),
// each sailing at the Fleet's spec.speed. FleetReconciler creates and
// repairs them with a controller reference to the Fleet, deletes the ones
// it controls beyond spec.ships, and reports in status.readyShips how many
// have caught up (ready at the Fleet's speed). ShipReconciler stands in for
// whatever makes a Ship ready: it marks every Ship ready at its own speed.
// Neither writes anything on a pass that finds nothing to change.
//
// It lives under testdata so that "go test ./..." and "go vet ./..." skip
// it; tests import its packages by full path.
package fleet
