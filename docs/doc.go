// Package docs checks the repository's documents against the code, so they
// cannot drift: every shell block marked runnable in README.md and in the
// guides docs/*.md runs (with its budgets cut), every relative link in them
// names a file that exists, only the performance guide carries dates, and
// ARCHITECTURE.md's layering table is what the packages import. It has no
// code of its own; the checks are its tests, which `make test` runs.
//
// A block is runnable when the line before its opening fence is
//
//	<!-- runnable -->
//
// Each command of the block (a line, with backslash continuations) runs
// with `bash -c` from the repository root, a guide's as the README's, with
// a `converge` built from this tree first on PATH, and must exit 0 within runnableTimeout. Budgets
// are cut before it runs: -rapid.checks=N becomes -rapid.checks=3,
// -rapid.steps=N becomes -rapid.steps=20 and FUZZTIME=D becomes FUZZTIME=1s.
// A `go test -run` that matches no test fails, as a renamed test would.
package docs
