package properties

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/converge-dev/converge/impl/cluster"
	"github.com/converge-dev/converge/impl/store"
	"github.com/converge-dev/converge/impl/store/storetest"
	"github.com/converge-dev/converge/model"
)

// benchSeed is the campaign seed of BenchmarkLockstep, the one of
// `converge check --target lockstep --steps 50 --seed 7`: check i of the
// benchmark is check i of that command.
const benchSeed = 7

// BenchmarkLockstep is `converge check --target lockstep --checks N
// --steps 50 --seed 7` (faults on) as a benchmark: lockstep checks a
// minute, and the time against the floor of the model alone running the
// same checks (the model campaign of the same seed draws the same actions:
// the benchmark compares the scripts' digests), measured in the same run.
// Run it at a fixed count, -benchtime 300x, so each figure covers the same
// checks.
func BenchmarkLockstep(b *testing.B) {
	cli := storetest.Client(b)
	n := 0
	var last *store.Store
	newStepped := func(d model.Decisions) (*cluster.Stepped, error) {
		if last != nil {
			_ = last.Drop(context.Background())
		}
		n++
		last = store.New(cli, fmt.Sprintf("/bench-lockstep/%d", n))
		return cluster.NewStepped(cluster.SteppedConfig{Store: last, Decisions: d})
	}
	defer func() {
		if last != nil {
			_ = last.Drop(context.Background())
		}
	}()
	campaign := func(target Target) (Outcome, time.Duration) {
		c := Campaign{Checks: b.N, Steps: 50, Seed: benchSeed, Faults: true, Target: target, NewStepped: newStepped,
			TracePath: b.TempDir() + "/failure.jsonl"}
		start := time.Now()
		o, err := c.Run()
		elapsed := time.Since(start)
		if err != nil {
			b.Fatal(err)
		}
		if o.Failure != nil {
			b.Fatalf("%s campaign failed:\n%s", target, o.Report)
		}
		return o, elapsed
	}
	b.ResetTimer()
	lock, elapsed := campaign(TargetLockstep)
	b.StopTimer()
	floor, floorElapsed := campaign(TargetModel)
	for i := range lock.Runs {
		if lock.Runs[i].Digest != floor.Runs[i].Digest {
			b.Fatalf("check %d: the model campaign drew another script than lockstep (%d and %d actions): no floor", i, floor.Runs[i].Actions, lock.Runs[i].Actions)
		}
	}
	b.ReportMetric(float64(b.N)/elapsed.Minutes(), "checks/min")
	b.ReportMetric(elapsed.Seconds()/floorElapsed.Seconds(), "x-model")
	b.ReportMetric(float64(b.N)/floorElapsed.Minutes(), "model-checks/min")
}
