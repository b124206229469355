package properties

import (
	"testing"
	"time"

	"pgregory.net/rapid"
)

// HuntResult is one search for a failure of an operator: what it took to
// find the first one, for a measurement or a test that expects a seeded
// bug to be caught.
type HuntResult struct {
	// Failed: a check failed (rapid's report says how).
	Failed bool
	// Checks is the checks run up to the first failing one, itself
	// included; every check when none failed.
	Checks int
	// Find is the wall time to the end of the first failing check (0
	// when none failed), Total the whole run's, shrinking included.
	Find, Total time.Duration
	// Drawn is the actions rapid drew in the shrunk counterexample: what
	// shrinking could not remove.
	Drawn int
	// Report is rapid's report: the shrunk failure and its steps.
	Report *Report
}

// Hunt runs CheckOperator's checks on op under rapid's flags
// (-rapid.checks, -rapid.seed, -rapid.shrinktime; SetRapidFlags sets
// them in a test) until the first failure, shrinks it, and says how many
// checks and how long it took to find. It does not fail t: the result
// says what happened. Stores come from t.
func Hunt(t testing.TB, op Operator) HuntResult {
	t.Helper()
	h := HuntResult{Report: NewReport(t.Name())}
	d := &determinism{}
	found := false
	start := time.Now()
	checkOperator(h.Report, t, op, d, func(rt *rapid.T, run func()) {
		if !found {
			h.Checks++
		}
		defer func() {
			if rt.Failed() && !found {
				found, h.Find = true, time.Since(start)
			}
		}()
		run()
	})
	d.mu.Lock()
	h.Drawn = d.drawn // rapid runs the shrunk counterexample last
	d.mu.Unlock()
	h.Total = time.Since(start)
	h.Failed = h.Report.Failed()
	if !h.Failed {
		h.Find, h.Drawn = 0, 0
	}
	return h
}
