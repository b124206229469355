package model_test

import (
	"testing"

	"pgregory.net/rapid"

	"github.com/converge-dev/converge/model"
	"github.com/converge-dev/converge/properties"
)

// BenchmarkModelCheck measures whole property checks of 100 steps
// (invariants after every step, then Quiesce and Converged).
func BenchmarkModelCheck(b *testing.B) {
	defer setFlag(nil, "rapid.steps", "100")()
	defer setFlag(nil, "rapid.checks", "1")()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		rec := properties.NewReport("bench")
		rapid.Check(rec, func(t *rapid.T) { properties.Model(t, model.Config{}) })
		if rec.Failed() {
			b.Fatal(rec.Text())
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "checks/s")
}
