// Package operator is a worked example of an operator written with
// controller-runtime and laid out as kubebuilder lays projects out:
//
//	api/v1/                 the WebApp kind (webapp.example.com/v1) and its deep copies
//	config/crd/bases/       its CustomResourceDefinition, as controller-gen writes it
//	internal/controller/    WebAppReconciler
//	cmd/main.go             the manager that runs it (--bug seeds a bug, for converge check operator's tests)
//
// A WebApp runs spec.replicas pods of spec.image listening on spec.port:
// the operator owns a ConfigMap "<name>-config" (spec.message, which the
// pods read as MESSAGE), a Deployment "<name>" and a Service "<name>",
// each with a controller reference, and reports readyReplicas and an
// Available condition in the WebApp's status. A finalizer makes it delete
// the ConfigMap itself before the WebApp goes; the garbage collector takes
// the rest. A pass that finds nothing to change writes nothing.
//
// As in most operators, the CRD does not restrict what the children need:
// a WebApp whose name is not a valid Service name (a DNS-1035 label of at
// most 63 characters) or whose image the Deployment validation refuses
// (leading or trailing whitespace) is accepted, and its reconciles fail
// with the apiserver's 422 until it is fixed.
//
// converge runs it unmodified against its apiserver (e2e/clients) and
// checks it with its operator oracles; WebAppReconciler.Bug seeds the
// realistic bugs those oracles must catch.
//
// The aliases below re-export the reconciler: Go does not let code outside
// examples/operator (converge's e2e tests and properties) import
// internal/controller.
package operator

import "github.com/converge-dev/converge/examples/operator/internal/controller"

// WebAppReconciler is controller.WebAppReconciler.
type WebAppReconciler = controller.WebAppReconciler

// Bug is controller.Bug: leave empty; for converge's mutant tests.
type Bug = controller.Bug

// Bugs lists every seeded bug.
var Bugs = controller.Bugs
