// Package reliability holds converge's tests under faults and load: the
// SIGKILL durability of converge up, the linearizability of the
// apiserver's history (checked with porcupine), the guarantees of its
// watches, its limits against hostile clients, and a load benchmark.
//
// The tests speak to the apiserver as any client would, with plain JSON
// over HTTP on loopback, so that they judge the wire and not converge's
// own types. Every server, load and fault they start listens on
// 127.0.0.1, and every request loop is bounded in count and time.
package reliability
