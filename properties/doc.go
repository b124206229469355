// Package properties holds converge's rapid properties and the action
// generator they share: the model alone, and the model against the
// stepped implementation in lockstep.
//
// Guarantees:
//   - Actions are drawn from the model's enabled set (component steps and
//     faults) or from small pools of user actions, so collisions (same
//     names, same nodes) are frequent and counterexamples shrink well.
//   - Every failure reports the action list so far as a replayable script
//     (one model.ParseAction line per action).
//   - Invariants are checked after every step; once faults stop, Recovery,
//     a fair Quiesce and Converged are checked.
package properties
