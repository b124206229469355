// Package traces defines the converge trace format (schema v1, JSON Lines),
// records traces from a stepped cluster, streams them to and from files,
// replays and diffs them, and draws one as an HTML swim-lane timeline.
//
// A trace has one TraceEvent per action taken by the model or the implementation.
// Traces are written to be diffed, as etcd-io/raft's interaction traces are:
// a stable field order, no pointers, and no wall-clock times or random ids in
// the compared part.
//
// Guarantees:
//   - Deterministic bytes: the same TraceEvent always encodes to the same line, and
//     a trace read back by ReadAll and written again is byte-identical.
//   - The Writer never writes a line the Reader would reject: it validates each
//     event (v is 1, seq is the previous seq + 1, required fields present,
//     valid UTF-8, line at most MaxLineBytes) and returns ErrInvalidEvent
//     instead of writing.
//   - The Reader rejects anything but schema v1: unknown fields, a missing
//     digest, a seq gap, an over-long line. Every error is a *LineError that
//     names the line number and wraps ErrBadTrace. It never panics.
//   - Volatile fields (TraceEvent.Rev, TraceEvent.Time, Write.Rev,
//     Write.UID) are kept in files but Mask zeroes them; Diff always
//     compares masked events.
//   - Diff ignores seq numbers, so one inserted event shows as one added event
//     and not as every later event changed. It aligns with Myers' O(ND)
//     algorithm in linear space and bounds its cost on very different inputs.
//   - A Recorder wraps any Stepper (the model or the stepped implementation)
//     and writes one event per step with FromStep. Each event carries the
//     action's script line, so Replay can re-run a trace exactly and report
//     the first event that comes out differently, compared as Diff compares.
//     Traces of the model leave every volatile field empty.
//   - Scenarios are action scripts plus "quiesce" and "drain" pseudo-steps
//     that Expand replaces with the model's own schedule, so a recorded trace
//     lists only real actions. Each ends converged; testdata/traces holds
//     their golden traces.
//   - WriteHTML produces one self-contained file: inline CSS, JS and data, no
//     network access. Event text is inserted as text, never as markup.
package traces
