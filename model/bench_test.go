package model

import "testing"

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

// BenchmarkModelStepOnly measures Step alone: a schedule recorded from a
// busy run is replayed on fresh states, choosing nothing.
func BenchmarkModelStepOnly(b *testing.B) {
	setup := []Action{
		{Op: OpAddNode, Who: "node-1"}, {Op: OpAddNode, Who: "node-2"}, {Op: OpAddNode, Who: "node-3"},
		{Op: OpApplyService, Key: "web", App: "web", N: 80},
	}
	users := []Action{
		{Op: OpApply, Key: "web", N: 5, Image: "nginx:1"},
		{Op: OpSetImage, Key: "web", Image: "nginx:2"},
		{Op: OpScale, Key: "web", N: 2},
	}
	rec := New(Config{})
	schedule := append([]Action(nil), setup...)
	for _, a := range setup {
		rec.Step(a)
	}
	for _, u := range users {
		rec.Step(u)
		schedule = append(schedule, u)
		for {
			a, ok := rec.NextQuiesceStep()
			if !ok {
				break
			}
			rec.Step(a)
			schedule = append(schedule, a)
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for done := 0; done < b.N; {
		b.StopTimer()
		st := New(Config{})
		b.StartTimer()
		for _, a := range schedule {
			st.Step(a)
			if done++; done == b.N {
				break
			}
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "steps/s")
}
