// Package ci holds converge.yml, a GitHub Actions workflow users copy to run
// converge campaigns in CI: a property campaign sharded over a matrix of 4
// jobs, merged into one summary; golden trace diffs annotated on the pull
// request; every fuzz target with a cached corpus; failure traces and HTML
// timelines kept as artifacts. Its test parses the workflow and runs every
// command in it locally with tiny budgets, so the recipe cannot rot.
package ci
