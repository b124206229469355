package operator_test

import (
	"flag"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/converge-dev/converge/examples/operator/internal/controller"
	"github.com/converge-dev/converge/properties"
)

var (
	measure      = flag.Bool("operator.measure", false, "measure every seeded bug over seeds and log the README table")
	measureSeeds = flag.Int("operator.seeds", 5, "seeds of -operator.measure")
	measureBugs  = flag.String("operator.bugs", "", "the seeded bugs -operator.measure measures, comma-separated (default: all)")
)

// mutant is the example operator with one seeded bug.
func mutant(bug controller.Bug) properties.Operator {
	op := webApp()
	op.Setup = func(mgr ctrl.Manager) error {
		return (&controller.WebAppReconciler{Client: mgr.GetClient(), Scheme: mgr.GetScheme(), Bug: bug}).SetupWithManager(mgr)
	}
	return op
}

// TestMutantsAreCaught: each seeded bug of the example operator fails the
// check that the operator as shipped passes, on a fixed seed (the same
// seed gives the same runs), within 300 checks.
func TestMutantsAreCaught(t *testing.T) {
	for _, bug := range controller.Bugs {
		t.Run(string(bug), func(t *testing.T) {
			h := hunt(t, mutant(bug), 1, 300, 2*time.Second)
			if !h.found {
				t.Fatalf("the %s mutant passed 300 checks", bug)
			}
			t.Logf("caught after %d checks in %v, %d drawn actions after shrinking: %s", h.checks, h.find.Round(time.Millisecond), h.drawn, h.caughtAs)
		})
	}
}

// TestMeasureMutants prints the README's table: per seeded bug, the median
// over seeds of the time to the first failure, the checks it took, and
// the drawn actions of the shrunk counterexample. It only runs with
// -operator.measure.
func TestMeasureMutants(t *testing.T) {
	if !*measure {
		t.Skip("a measurement, not a check: run with -operator.measure")
	}
	var b strings.Builder
	b.WriteString("| seeded bug | caught as | median time to find | median checks | median drawn actions | caught |\n|---|---|---|---|---|---|\n")
	for _, bug := range controller.Bugs {
		if *measureBugs != "" && !slices.Contains(strings.Split(*measureBugs, ","), string(bug)) {
			continue
		}
		var finds []time.Duration
		var checks, drawn []int
		caughtAs := ""
		for seed := uint64(1); seed <= uint64(*measureSeeds); seed++ {
			h := hunt(t, mutant(bug), seed, 1000, 30*time.Second)
			t.Logf("%s seed %d: found=%v after %d checks in %v, %d drawn (%s)", bug, seed, h.found, h.checks, h.find.Round(time.Millisecond), h.drawn, h.caughtAs)
			if h.found {
				finds, checks, drawn = append(finds, h.find), append(checks, h.checks), append(drawn, h.drawn)
				caughtAs = h.caughtAs
			}
		}
		fmt.Fprintf(&b, "| %s | %s | %v | %d | %d | %d/%d |\n", bug, caughtAs, median(finds).Round(10*time.Millisecond), median(checks), median(drawn), len(finds), *measureSeeds)
	}
	t.Log("\n" + b.String())
}

// result is one campaign against a mutant, timed up to its first failure.
type result struct {
	found    bool
	checks   int
	find     time.Duration
	drawn    int    // drawn actions of the shrunk counterexample
	caughtAs string // the oracle, from the failure's first line
}

func hunt(t *testing.T, op properties.Operator, seed uint64, checks int, shrink time.Duration) result {
	t.Helper()
	defer properties.SetRapidFlags(t, map[string]string{"rapid.checks": strconv.Itoa(checks), "rapid.seed": strconv.FormatUint(seed, 10),
		"rapid.nofailfile": "true", "rapid.shrinktime": shrink.String()})()
	h := properties.Hunt(t, op)
	r := result{found: h.Failed, checks: h.Checks, find: h.Find, drawn: h.Drawn}
	text := h.Report.Text()
	if i := strings.Index(text, "[rapid] failed"); i >= 0 {
		line := text[i:]
		if j := strings.IndexByte(line, '\n'); j >= 0 {
			line = line[:j]
		}
		if k := strings.Index(line, ": "); k >= 0 {
			line = line[k+2:]
		}
		r.caughtAs, _, _ = strings.Cut(line, ":")
		if r.caughtAs == "properties" { // the harness's own failure, such as a full etcd: no catch
			t.Errorf("seed %d: the check failed before the operator ran: %s", seed, line)
			r.found = false
		}
	}
	return r
}

func median[T int | time.Duration](xs []T) T {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}
