// Package mutants is the proof-of-teeth catalogue for user controllers:
// realistic buggy controllers, each written natively against converge's
// controller API (cluster.ControllerSpec, a client.Client, informer
// caches), each with the bug real controllers have had. The package's
// tests assert that properties.CheckController finds every one within a
// fixed budget of checks and shrinks it to a short counterexample.
//
// Guarantees:
//   - Each Mutant replaces exactly one built-in component (Mutant.Spec's
//     Name) and differs from a correct controller by the one bug its Bug
//     field names; everything else follows the built-in's semantics.
//   - Each Mutant names the failure the property reports for it (Caught),
//     a substring of the invariant or convergence message.
//   - A Mutant with Decisions carries the same bug, under the same name,
//     as a replaced decision of the shared model code (package decide), for
//     the model property, the lockstep and `converge check --mutant`; the
//     shipped model has no mutant switch. This is the one catalogue.
//   - Controls are correct controllers with idioms a naive harness flags
//     (a periodic resync, deletes without a precondition, reused names);
//     the property must pass them.
//   - Elusive holds bugs the invariants would flag but the generic
//     generator does not reach within the budget; they are measured, not
//     asserted.
//   - The controllers are deterministic: no clock, no randomness; they keep
//     state only in memory, which a crash loses.
package mutants
