// Package kubebuilder checks converge init end to end on a project that
// kubebuilder itself scaffolds: kubebuilder init and create api, a
// reconciler that owns a Deployment, converge init, then go test of the
// generated converge_test.go with converge replaced by this checkout.
//
// It downloads kubebuilder, controller-gen and the scaffold's modules, so
// it is a module of its own, run by `make test-init` and not by make test.
package kubebuilder
