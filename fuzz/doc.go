// Package fuzz holds converge's coverage-guided fuzz targets (go test
// -fuzz). It has no non-test code: the targets live in _test.go files, and
// their committed seed corpora in testdata/fuzz/<Target>/.
//
// Targets:
//   - FuzzModel: the model property (properties.Model) on interleavings
//     decoded from the fuzzer's bytes by rapid.MakeFuzz.
//   - FuzzLockstep: the model-vs-implementation property
//     (properties.Lockstep, with faults) on the stepped cluster. Each fuzz
//     worker is its own process with one embedded etcd (TestMain); each input
//     gets a fresh key prefix, so an input costs milliseconds, not an etcd
//     start.
//   - FuzzManifest: api.DecodeManifests, then api.Default and api.Validate
//     on every object.
//   - FuzzTraceRead: traces.ReadAll, then Diff, WriteText and WriteJSON on
//     every trace it accepts.
//   - FuzzAPIRequest: arbitrary method, path, content type and body against
//     the apiserver's HTTP handler over a real store, with the example's
//     Widget CRD installed (and installed again when an input deletes it),
//     so custom-resource and CRD paths are live. The CRD controllers and
//     the custom-resource garbage collection run in the foreground after
//     each accepted write, not in the background, so that a rejected
//     request's "nothing written" holds.
//
// Guarantees (what a target fails on):
//   - Nothing panics on any input, and a panic that the code under test
//     recovers from itself (DecodeManifests turns one into a 400) still
//     fails the target: a recovered panic is a bug hidden from the user.
//   - FuzzManifest: a decode error is a *api.StatusError with code 400 and no
//     objects; Default is idempotent; a validation error is a
//     *api.StatusError with code 422.
//   - FuzzTraceRead: a rejected trace's error wraps traces.ErrBadTrace and
//     is a *traces.LineError naming a line; an accepted trace diffs Equal
//     against itself, prints with WriteText and WriteJSON, and writes back
//     byte-identical (traces' own guarantee).
//   - FuzzAPIRequest: no 5xx, JSON answers are valid JSON, and a rejected
//     request (non-2xx) leaves the store's revision unchanged.
//   - FuzzModel, FuzzLockstep: the property's own checks (invariants after
//     every step, lockstep equality, convergence); a failure prints the
//     script and saves it as a trace (properties.FailureTraceEnv).
//   - Every crasher Go writes to testdata/fuzz/<Target>/ is re-run by a
//     plain `go test ./fuzz`, so it stays a regression test once committed.
package fuzz
