package model

import (
	"testing"

	"pgregory.net/rapid"
)

// BenchmarkModelStep measures steps/s on a busy cluster: each iteration
// applies one enabled step (or a user action when none is), cycling through
// a deterministic schedule.
func BenchmarkModelStep(b *testing.B) {
	st := New(Config{})
	for _, n := range []string{"node-1", "node-2", "node-3"} {
		st.Step(Action{Op: OpAddNode, Who: n})
	}
	st.Step(Action{Op: OpApplyService, Key: "web", App: "web", N: 80})
	users := []Action{
		{Op: OpApply, Key: "web", N: 5, Image: "nginx:1"},
		{Op: OpSetImage, Key: "web", Image: "nginx:2"},
		{Op: OpScale, Key: "web", N: 2},
		{Op: OpSetImage, Key: "web", Image: "nginx:1"},
		{Op: OpScale, Key: "web", N: 5},
	}
	u := 0
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		a, ok := st.NextQuiesceStep()
		if !ok {
			a = users[u%len(users)]
			u++
		}
		st.Step(a)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "steps/s")
}

// BenchmarkModelCheck measures whole property checks of 100 steps
// (invariants after every step, then Quiesce and Converged).
func BenchmarkModelCheck(b *testing.B) {
	defer setFlag(nil, "rapid.steps", "100")()
	defer setFlag(nil, "rapid.checks", "1")()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		rec := &recorder{name: "bench"}
		rapid.Check(rec, func(t *rapid.T) { runModel(t, Config{}) })
		if rec.failed {
			b.Fatal(rec.text())
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "checks/s")
}
