// Package clients runs real Kubernetes clients, client-go and
// controller-runtime with their default settings, against a converge
// control plane started in the test process: the apiserver over HTTPS on
// 127.0.0.1, the registry on embedded etcd, and every controller
// running. It is a module of its own so that the main module does not
// carry client-go and controller-runtime; `make test` runs it.
package clients
