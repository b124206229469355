package mutants_test

import (
	"flag"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/converge-dev/converge/properties/mutants"
)

var (
	measure    = flag.Bool("mutants.measure", false, "measure every mutant over seeds and log the README table")
	firstSeed  = flag.Uint64("mutants.seed", 1, "first seed of -mutants.measure")
	seeds      = flag.Int("mutants.seeds", 5, "seeds of -mutants.measure")
	budgetFlag = flag.Int("mutants.checks", budget, "checks per seed of -mutants.measure")
	only       = flag.String("mutants.only", "", "measure only the mutants whose names contain this")
	stepsFlag  = flag.Int("mutants.steps", steps, "average drawn actions per check of -mutants.measure")
	// measureShrink caps shrinking per seed in the measurement; the
	// README's table is measured with the test's cap.
	measureShrink = flag.Duration("mutants.shrinktime", shrinkTime, "shrinking cap per seed of -mutants.measure")
)

// TestMeasureMutants prints the README's table: per mutant, the median over
// five seeds of the time to the first failure, the checks it took and the
// shrunk counterexample's length. It only runs with -mutants.measure.
func TestMeasureMutants(t *testing.T) {
	if !*measure {
		t.Skip("a measurement, not a check: run with -mutants.measure")
	}
	var b strings.Builder
	b.WriteString("| mutant | caught as | time to find | checks | drawn actions | whole script | caught |\n|---|---|---|---|---|---|---|\n")
	for _, m := range append(append([]mutants.Mutant(nil), mutants.All...), mutants.Elusive...) {
		if !strings.Contains(m.Name, *only) {
			continue
		}
		t.Run(m.Name, func(t *testing.T) {
			var finds []time.Duration
			var checks, drawn, lengths []int
			for seed := *firstSeed; seed < *firstSeed+uint64(*seeds); seed++ {
				h := run(t, m, settings{seed: seed, checks: *budgetFlag, steps: *stepsFlag, shrink: *measureShrink})
				t.Logf("seed %d: found=%v after %d checks in %v, %d drawn, %d in all (with shrinking %v)", seed, h.found, h.checks, h.find.Round(time.Millisecond), h.drawn, h.length, h.total.Round(time.Millisecond))
				if h.found {
					finds, checks = append(finds, h.find), append(checks, h.checks)
					drawn, lengths = append(drawn, h.drawn), append(lengths, h.length)
				}
			}
			fmt.Fprintf(&b, "| %s | %s | %v | %d | %d | %d | %d/%d |\n", m.Name, m.Caught,
				median(finds).Round(10*time.Millisecond), median(checks), median(drawn), median(lengths), len(finds), *seeds)
		})
	}
	t.Log("\n" + b.String())
}

func median[T int | time.Duration](xs []T) T {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}
